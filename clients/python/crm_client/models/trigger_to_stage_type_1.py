from enum import StrEnum


class TriggerToStageType1(StrEnum):
    LOST = "lost"
    NEW = "new"
    PROPOSAL = "proposal"
    QUALIFIED = "qualified"
    WON = "won"

    def __str__(self) -> str:
        return str(self.value)
