from enum import StrEnum


class PipelineKind(StrEnum):
    CONVERSATIONS = "conversations"
    DEALS = "deals"

    def __str__(self) -> str:
        return str(self.value)
