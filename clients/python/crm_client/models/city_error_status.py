from enum import StrEnum


class CityErrorStatus(StrEnum):
    AMBIGUOUS = "ambiguous"
    FUZZY = "fuzzy"
    INVALID_CODE = "invalid_code"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
