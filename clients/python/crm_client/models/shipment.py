from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.shipment_status import ShipmentStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.destination import Destination
    from ..models.package import Package
    from ..models.shipment_event import ShipmentEvent


T = TypeVar("T", bound="Shipment")


@_attrs_define
class Shipment:
    """
    Attributes:
        id (str):
        contact_id (str):
        provider (str):
        carrier (str):
        service (str):
        status (ShipmentStatus):
        events (list[ShipmentEvent]):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        tracking_number (None | str | Unset):
        track_url (None | str | Unset):
        label_url (None | str | Unset):
        price (float | None | Unset):
        currency (None | str | Unset):
        packages (list[Package] | Unset):
        destination (Destination | Unset): Overrides the contact's address; `stateCode` is the server's.
        pickup (Any | Unset):
        idempotency_key (None | str | Unset):
        deal_id (None | str | Unset):
        quotation_id (None | str | Unset):
        invoice_id (None | str | Unset):
        refund (Any | Unset):
        error (Any | Unset):
    """

    id: str
    contact_id: str
    provider: str
    carrier: str
    service: str
    status: ShipmentStatus
    events: list[ShipmentEvent]
    created_at: datetime.datetime
    updated_at: datetime.datetime
    tracking_number: None | str | Unset = UNSET
    track_url: None | str | Unset = UNSET
    label_url: None | str | Unset = UNSET
    price: float | None | Unset = UNSET
    currency: None | str | Unset = UNSET
    packages: list[Package] | Unset = UNSET
    destination: Destination | Unset = UNSET
    pickup: Any | Unset = UNSET
    idempotency_key: None | str | Unset = UNSET
    deal_id: None | str | Unset = UNSET
    quotation_id: None | str | Unset = UNSET
    invoice_id: None | str | Unset = UNSET
    refund: Any | Unset = UNSET
    error: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        contact_id = self.contact_id

        provider = self.provider

        carrier = self.carrier

        service = self.service

        status = self.status.value

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.to_dict()
            events.append(events_item)

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        tracking_number: None | str | Unset
        if isinstance(self.tracking_number, Unset):
            tracking_number = UNSET
        else:
            tracking_number = self.tracking_number

        track_url: None | str | Unset
        if isinstance(self.track_url, Unset):
            track_url = UNSET
        else:
            track_url = self.track_url

        label_url: None | str | Unset
        if isinstance(self.label_url, Unset):
            label_url = UNSET
        else:
            label_url = self.label_url

        price: float | None | Unset
        if isinstance(self.price, Unset):
            price = UNSET
        else:
            price = self.price

        currency: None | str | Unset
        if isinstance(self.currency, Unset):
            currency = UNSET
        else:
            currency = self.currency

        packages: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.packages, Unset):
            packages = []
            for packages_item_data in self.packages:
                packages_item = packages_item_data.to_dict()
                packages.append(packages_item)

        destination: dict[str, Any] | Unset = UNSET
        if not isinstance(self.destination, Unset):
            destination = self.destination.to_dict()

        pickup = self.pickup

        idempotency_key: None | str | Unset
        if isinstance(self.idempotency_key, Unset):
            idempotency_key = UNSET
        else:
            idempotency_key = self.idempotency_key

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

        refund = self.refund

        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "contactId": contact_id,
                "provider": provider,
                "carrier": carrier,
                "service": service,
                "status": status,
                "events": events,
                "createdAt": created_at,
                "updatedAt": updated_at,
            }
        )
        if tracking_number is not UNSET:
            field_dict["trackingNumber"] = tracking_number
        if track_url is not UNSET:
            field_dict["trackUrl"] = track_url
        if label_url is not UNSET:
            field_dict["labelUrl"] = label_url
        if price is not UNSET:
            field_dict["price"] = price
        if currency is not UNSET:
            field_dict["currency"] = currency
        if packages is not UNSET:
            field_dict["packages"] = packages
        if destination is not UNSET:
            field_dict["destination"] = destination
        if pickup is not UNSET:
            field_dict["pickup"] = pickup
        if idempotency_key is not UNSET:
            field_dict["idempotencyKey"] = idempotency_key
        if deal_id is not UNSET:
            field_dict["dealId"] = deal_id
        if quotation_id is not UNSET:
            field_dict["quotationId"] = quotation_id
        if invoice_id is not UNSET:
            field_dict["invoiceId"] = invoice_id
        if refund is not UNSET:
            field_dict["refund"] = refund
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.destination import Destination  # noqa: PLC0415
        from ..models.package import Package  # noqa: PLC0415
        from ..models.shipment_event import ShipmentEvent  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        contact_id = d.pop("contactId")

        provider = d.pop("provider")

        carrier = d.pop("carrier")

        service = d.pop("service")

        status = ShipmentStatus(d.pop("status"))

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = ShipmentEvent.from_dict(events_item_data)

            events.append(events_item)

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        def _parse_tracking_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tracking_number = _parse_tracking_number(d.pop("trackingNumber", UNSET))

        def _parse_track_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        track_url = _parse_track_url(d.pop("trackUrl", UNSET))

        def _parse_label_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label_url = _parse_label_url(d.pop("labelUrl", UNSET))

        def _parse_price(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        price = _parse_price(d.pop("price", UNSET))

        def _parse_currency(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        currency = _parse_currency(d.pop("currency", UNSET))

        _packages = d.pop("packages", UNSET)
        packages: list[Package] | Unset = UNSET
        if _packages is not UNSET:
            packages = []
            for packages_item_data in _packages:
                packages_item = Package.from_dict(packages_item_data)

                packages.append(packages_item)

        _destination = d.pop("destination", UNSET)
        destination: Destination | Unset
        if isinstance(_destination, Unset):
            destination = UNSET
        else:
            destination = Destination.from_dict(_destination)

        pickup = d.pop("pickup", UNSET)

        def _parse_idempotency_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_key = _parse_idempotency_key(d.pop("idempotencyKey", UNSET))

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

        refund = d.pop("refund", UNSET)

        error = d.pop("error", UNSET)

        shipment = cls(
            id=id,
            contact_id=contact_id,
            provider=provider,
            carrier=carrier,
            service=service,
            status=status,
            events=events,
            created_at=created_at,
            updated_at=updated_at,
            tracking_number=tracking_number,
            track_url=track_url,
            label_url=label_url,
            price=price,
            currency=currency,
            packages=packages,
            destination=destination,
            pickup=pickup,
            idempotency_key=idempotency_key,
            deal_id=deal_id,
            quotation_id=quotation_id,
            invoice_id=invoice_id,
            refund=refund,
            error=error,
        )

        shipment.additional_properties = d
        return shipment

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
