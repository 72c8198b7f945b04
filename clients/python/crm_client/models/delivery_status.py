from enum import StrEnum


class DeliveryStatus(StrEnum):
    DELIVERED = "delivered"
    DISABLED = "disabled"
    FAILED = "failed"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
