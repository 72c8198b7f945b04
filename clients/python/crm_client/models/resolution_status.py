from enum import StrEnum


class ResolutionStatus(StrEnum):
    ABSENT = "absent"
    AMBIGUOUS = "ambiguous"
    FOREIGN = "foreign"
    FUZZY = "fuzzy"
    INVALID_CODE = "invalid_code"
    NONE = "none"
    RESOLVED = "resolved"

    def __str__(self) -> str:
        return str(self.value)
