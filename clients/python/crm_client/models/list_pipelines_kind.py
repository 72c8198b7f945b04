from enum import StrEnum


class ListPipelinesKind(StrEnum):
    CONVERSATIONS = "conversations"
    DEALS = "deals"

    def __str__(self) -> str:
        return str(self.value)
