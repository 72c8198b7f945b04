from enum import StrEnum


class ImportSummaryLocationMode(StrEnum):
    LENIENT = "lenient"
    STRICT = "strict"

    def __str__(self) -> str:
        return str(self.value)
