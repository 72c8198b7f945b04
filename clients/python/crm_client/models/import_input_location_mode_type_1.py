from enum import StrEnum


class ImportInputLocationModeType1(StrEnum):
    LENIENT = "lenient"
    STRICT = "strict"

    def __str__(self) -> str:
        return str(self.value)
