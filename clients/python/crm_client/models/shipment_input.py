from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.destination import Destination
    from ..models.package import Package
    from ..models.shipment_input_cod_type_1 import ShipmentInputCodType1
    from ..models.shipment_input_insurance_type_1 import ShipmentInputInsuranceType1
    from ..models.shipment_input_pickup_type_1 import ShipmentInputPickupType1


T = TypeVar("T", bound="ShipmentInput")


@_attrs_define
class ShipmentInput:
    """
    Attributes:
        contact_id (str):
        carrier (str):
        service (str):
        packages (list[Package]):
        idempotency_key (None | str | Unset):
        destination (Destination | None | Unset):
        insurance (bool | ShipmentInputInsuranceType1 | Unset):
        cod (bool | ShipmentInputCodType1 | Unset):
        pickup (bool | ShipmentInputPickupType1 | Unset):
        deal_id (None | str | Unset): An id (24 hex); blank or null is none.
        quotation_id (None | str | Unset): An id (24 hex); blank or null is none.
        invoice_id (None | str | Unset): An id (24 hex); blank or null is none.
    """

    contact_id: str
    carrier: str
    service: str
    packages: list[Package]
    idempotency_key: None | str | Unset = UNSET
    destination: Destination | None | Unset = UNSET
    insurance: bool | ShipmentInputInsuranceType1 | Unset = UNSET
    cod: bool | ShipmentInputCodType1 | Unset = UNSET
    pickup: bool | ShipmentInputPickupType1 | Unset = UNSET
    deal_id: None | str | Unset = UNSET
    quotation_id: None | str | Unset = UNSET
    invoice_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.destination import Destination  # noqa: PLC0415
        from ..models.shipment_input_cod_type_1 import ShipmentInputCodType1  # noqa: PLC0415
        from ..models.shipment_input_insurance_type_1 import ShipmentInputInsuranceType1  # noqa: PLC0415
        from ..models.shipment_input_pickup_type_1 import ShipmentInputPickupType1  # noqa: PLC0415

        contact_id = self.contact_id

        carrier = self.carrier

        service = self.service

        packages = []
        for packages_item_data in self.packages:
            packages_item = packages_item_data.to_dict()
            packages.append(packages_item)

        idempotency_key: None | str | Unset
        if isinstance(self.idempotency_key, Unset):
            idempotency_key = UNSET
        else:
            idempotency_key = self.idempotency_key

        destination: dict[str, Any] | None | Unset
        if isinstance(self.destination, Unset):
            destination = UNSET
        elif isinstance(self.destination, Destination):
            destination = self.destination.to_dict()
        else:
            destination = self.destination

        insurance: bool | dict[str, Any] | Unset
        if isinstance(self.insurance, Unset):
            insurance = UNSET
        elif isinstance(self.insurance, ShipmentInputInsuranceType1):
            insurance = self.insurance.to_dict()
        else:
            insurance = self.insurance

        cod: bool | dict[str, Any] | Unset
        if isinstance(self.cod, Unset):
            cod = UNSET
        elif isinstance(self.cod, ShipmentInputCodType1):
            cod = self.cod.to_dict()
        else:
            cod = self.cod

        pickup: bool | dict[str, Any] | Unset
        if isinstance(self.pickup, Unset):
            pickup = UNSET
        elif isinstance(self.pickup, ShipmentInputPickupType1):
            pickup = self.pickup.to_dict()
        else:
            pickup = self.pickup

        deal_id: None | str | Unset
        if isinstance(self.deal_id, Unset):
            deal_id = UNSET
        else:
            deal_id = self.deal_id

        quotation_id: None | str | Unset
        if isinstance(self.quotation_id, Unset):
            quotation_id = UNSET
        else:
            quotation_id = self.quotation_id

        invoice_id: None | str | Unset
        if isinstance(self.invoice_id, Unset):
            invoice_id = UNSET
        else:
            invoice_id = self.invoice_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "contactId": contact_id,
                "carrier": carrier,
                "service": service,
                "packages": packages,
            }
        )
        if idempotency_key is not UNSET:
            field_dict["idempotencyKey"] = idempotency_key
        if destination is not UNSET:
            field_dict["destination"] = destination
        if insurance is not UNSET:
            field_dict["insurance"] = insurance
        if cod is not UNSET:
            field_dict["cod"] = cod
        if pickup is not UNSET:
            field_dict["pickup"] = pickup
        if deal_id is not UNSET:
            field_dict["dealId"] = deal_id
        if quotation_id is not UNSET:
            field_dict["quotationId"] = quotation_id
        if invoice_id is not UNSET:
            field_dict["invoiceId"] = invoice_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.destination import Destination  # noqa: PLC0415
        from ..models.package import Package  # noqa: PLC0415
        from ..models.shipment_input_cod_type_1 import ShipmentInputCodType1  # noqa: PLC0415
        from ..models.shipment_input_insurance_type_1 import ShipmentInputInsuranceType1  # noqa: PLC0415
        from ..models.shipment_input_pickup_type_1 import ShipmentInputPickupType1  # noqa: PLC0415

        d = dict(src_dict)
        contact_id = d.pop("contactId")

        carrier = d.pop("carrier")

        service = d.pop("service")

        packages = []
        _packages = d.pop("packages")
        for packages_item_data in _packages:
            packages_item = Package.from_dict(packages_item_data)

            packages.append(packages_item)

        def _parse_idempotency_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_key = _parse_idempotency_key(d.pop("idempotencyKey", UNSET))

        def _parse_destination(data: object) -> Destination | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                destination_type_1 = Destination.from_dict(data)

                return destination_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Destination | None | Unset, data)

        destination = _parse_destination(d.pop("destination", UNSET))

        def _parse_insurance(data: object) -> bool | ShipmentInputInsuranceType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                insurance_type_1 = ShipmentInputInsuranceType1.from_dict(data)

                return insurance_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | ShipmentInputInsuranceType1 | Unset, data)

        insurance = _parse_insurance(d.pop("insurance", UNSET))

        def _parse_cod(data: object) -> bool | ShipmentInputCodType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cod_type_1 = ShipmentInputCodType1.from_dict(data)

                return cod_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | ShipmentInputCodType1 | Unset, data)

        cod = _parse_cod(d.pop("cod", UNSET))

        def _parse_pickup(data: object) -> bool | ShipmentInputPickupType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pickup_type_1 = ShipmentInputPickupType1.from_dict(data)

                return pickup_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | ShipmentInputPickupType1 | Unset, data)

        pickup = _parse_pickup(d.pop("pickup", UNSET))

        def _parse_deal_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deal_id = _parse_deal_id(d.pop("dealId", UNSET))

        def _parse_quotation_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        quotation_id = _parse_quotation_id(d.pop("quotationId", UNSET))

        def _parse_invoice_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        invoice_id = _parse_invoice_id(d.pop("invoiceId", UNSET))

        shipment_input = cls(
            contact_id=contact_id,
            carrier=carrier,
            service=service,
            packages=packages,
            idempotency_key=idempotency_key,
            destination=destination,
            insurance=insurance,
            cod=cod,
            pickup=pickup,
            deal_id=deal_id,
            quotation_id=quotation_id,
            invoice_id=invoice_id,
        )

        shipment_input.additional_properties = d
        return shipment_input

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
