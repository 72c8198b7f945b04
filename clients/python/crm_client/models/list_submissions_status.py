from enum import StrEnum


class ListSubmissionsStatus(StrEnum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    SPAM = "spam"

    def __str__(self) -> str:
        return str(self.value)
