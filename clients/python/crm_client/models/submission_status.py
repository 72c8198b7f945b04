from enum import StrEnum


class SubmissionStatus(StrEnum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    SPAM = "spam"

    def __str__(self) -> str:
        return str(self.value)
