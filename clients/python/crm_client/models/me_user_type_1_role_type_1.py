from enum import StrEnum


class MeUserType1RoleType1(StrEnum):
    EMPLEADO = "empleado"
    LECTOR = "lector"
    PROPIETARIO = "propietario"

    def __str__(self) -> str:
        return str(self.value)
