from enum import StrEnum


class CityErrorCode(StrEnum):
    CITY_UNRESOLVED = "CITY_UNRESOLVED"
    INVALID_CITY_CODE = "INVALID_CITY_CODE"

    def __str__(self) -> str:
        return str(self.value)
