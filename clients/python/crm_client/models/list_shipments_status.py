from enum import StrEnum


class ListShipmentsStatus(StrEnum):
    CANCELLED = "cancelled"
    CREATED = "created"
    DELIVERED = "delivered"
    DRAFT = "draft"
    EXCEPTION = "exception"
    IN_TRANSIT = "in_transit"
    NEEDS_REVIEW = "needs_review"
    OUT_FOR_DELIVERY = "out_for_delivery"
    PICKED_UP = "picked_up"
    RETURNED = "returned"

    def __str__(self) -> str:
        return str(self.value)
