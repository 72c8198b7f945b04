"""A partner's shipping provider in Python, written from `wit/plugin.wit` alone
with componentize-py: "Moto Express", a courier with flat rates per zone
that needs no external API.

It is the Python twin of `../flat-rate-courier` (Rust). Build it with
`./build.sh` (or `scripts/build-python-courier.sh` from the project root):
componentize-py reads the WIT, generates the `wit_world` bindings, and
packs this file with a Python interpreter into `python_courier.wasm`. Copy
that into the host's `--plugins-dir` and enable it for an organization with
`PUT /admin/orgs/{org}/integrations/python-courier` (body `{}`).
"""

import math

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import provider
from wit_world.imports import runtime, shipping_types as st

CARRIER = "moto-express"
# Price per service: a base and a price per started kilogram, in COP.
SERVICES = {
    "express": ("Entrega en 3 horas", 12_000.0, 2_000.0),
    "standard": ("Entrega el mismo día", 7_000.0, 1_200.0),
}
# Tracking numbers are this prefix and the shipment's reference.
PREFIX = "MOTO"


def price(weight: float, base: float, per_kg: float) -> float:
    return base + per_kg * max(1, math.ceil(weight))


def rejected(code: str, message: str) -> Err:
    """A refusal made before anything happened: retrying is safe."""
    return Err(st.ProviderError_Rejected(st.Failure(code=code, message=message)))


class Provider(exports.Provider):
    def describe(self) -> provider.ProviderInfo:
        return provider.ProviderInfo(name="python-courier", version="1.0.0", hosts=[], needs_api_key=False)

    def carriers(self) -> list[str]:
        return [CARRIER]

    def rates(self, request: st.QuoteRequest) -> st.Quote:
        weight = sum(p.weight for p in request.packages)
        rates = [
            st.Rate(
                carrier=CARRIER,
                service=service,
                service_description=description,
                price=price(weight, base, per_kg),
                currency="COP",
                delivery_estimate=description,
            )
            for service, (description, base, per_kg) in SERVICES.items()
        ]
        return st.Quote(rates=rates, failed=[])

    def generate(self, request: st.LabelRequest) -> st.Label:
        if request.carrier != CARRIER:
            raise rejected("UNKNOWN_CARRIER", "This courier is moto-express")
        if request.service not in SERVICES:
            raise rejected("UNKNOWN_SERVICE", "This courier offers express and standard")
        _, base, per_kg = SERVICES[request.service]
        weight = sum(p.weight for p in request.packages)
        runtime.log(runtime.Level.INFO, f"label for {request.reference}")
        return st.Label(
            tracking_number=PREFIX + request.reference,
            track_url=None,
            label_url=None,
            price=price(weight, base, per_kg),
            currency="COP",
            provider_shipment_id=request.reference,
        )

    def track(self, tracking_numbers: list[str]) -> list[st.Tracking]:
        # The rider reports by phone: a label is all the system knows.
        created = st.Status.CREATED
        return [
            st.Tracking(
                tracking_number=number,
                status=created,
                events=[st.TrackingEvent(status=created, description="Esperando al mensajero", location=None, occurred_at=runtime.now())],
            )
            for number in tracking_numbers
            if number.startswith(PREFIX)
        ]

    def cancel(self, carrier: str, tracking_number: str) -> st.Refund:
        if not tracking_number.startswith(PREFIX):
            raise rejected("NOT_FOUND", "Unknown tracking number")
        # Nothing was charged in advance, so nothing is refunded.
        return st.Refund(amount=0.0, currency="COP", returned=False)

    def state_abbreviation(self, state_code: str) -> str | None:
        return state_code

    def parse_webhook(self, headers: list[tuple[str, str]], body: bytes) -> list[st.TrackingUpdate]:
        raise Err(st.Failure(code="NO_WEBHOOK", message="This courier sends no webhooks"))
