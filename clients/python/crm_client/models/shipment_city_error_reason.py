from enum import StrEnum


class ShipmentCityErrorReason(StrEnum):
    AMBIGUOUS = "ambiguous"
    FUZZY = "fuzzy"
    NONE = "none"
    UNSUPPORTED_COUNTRY = "unsupported_country"

    def __str__(self) -> str:
        return str(self.value)
