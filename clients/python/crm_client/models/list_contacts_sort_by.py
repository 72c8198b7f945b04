from enum import StrEnum


class ListContactsSortBy(StrEnum):
    CREATEDAT = "createdAt"
    UPDATEDAT = "updatedAt"

    def __str__(self) -> str:
        return str(self.value)
