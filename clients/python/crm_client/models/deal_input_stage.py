from enum import StrEnum


class DealInputStage(StrEnum):
    LOST = "lost"
    NEW = "new"
    PROPOSAL = "proposal"
    QUALIFIED = "qualified"
    WON = "won"

    def __str__(self) -> str:
        return str(self.value)
