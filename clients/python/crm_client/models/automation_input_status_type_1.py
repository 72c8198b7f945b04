from enum import StrEnum


class AutomationInputStatusType1(StrEnum):
    DRAFT = "draft"

    def __str__(self) -> str:
        return str(self.value)
