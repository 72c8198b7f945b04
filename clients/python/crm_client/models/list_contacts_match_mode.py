from enum import StrEnum


class ListContactsMatchMode(StrEnum):
    CONTAINS = "contains"
    EXACT = "exact"

    def __str__(self) -> str:
        return str(self.value)
