"""`__NAME__`: a shipping provider for the CRM, built against
`crm:plugin@__WIT_VERSION__` (`wit/plugin.wit`, the contract's published text)
with componentize-py. It starts as a courier with flat rates and no external
API; make it call your carrier through the `http` import (declare the
carrier's hosts in `describe`: the host refuses any other).

Answer `rejected` only when nothing happened at the carrier (retrying is then
safe); when you cannot tell (a timeout, a 5xx after sending), answer
`unknown` so that the host never creates a second label.
"""

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import provider
from wit_world.imports import runtime, shipping_types as st

from pricing import SERVICES, price

CARRIER = "__NAME__"
# Tracking numbers are this prefix and the shipment's reference.
PREFIX = "TRK"


def rejected(code: str, message: str) -> Err:
    return Err(st.ProviderError_Rejected(st.Failure(code=code, message=message)))


class Provider(exports.Provider):
    def describe(self) -> provider.ProviderInfo:
        return provider.ProviderInfo(name="__NAME__", version="0.1.0", hosts=[], needs_api_key=False)

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
            raise rejected("UNKNOWN_CARRIER", "This provider's carrier is __NAME__")
        if request.service not in SERVICES:
            raise rejected("UNKNOWN_SERVICE", "The services are " + ", ".join(SERVICES))
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
        created = st.Status.CREATED
        return [
            st.Tracking(
                tracking_number=number,
                status=created,
                events=[st.TrackingEvent(status=created, description="Label created", location=None, occurred_at=runtime.now())],
            )
            for number in tracking_numbers
            if number.startswith(PREFIX)
        ]

    def cancel(self, carrier: str, tracking_number: str) -> st.Refund:
        if not tracking_number.startswith(PREFIX):
            raise rejected("NOT_FOUND", "Unknown tracking number")
        return st.Refund(amount=0.0, currency="COP", returned=False)

    def state_abbreviation(self, state_code: str) -> str | None:
        return state_code

    def parse_webhook(self, headers: list[tuple[str, str]], body: bytes) -> list[st.TrackingUpdate]:
        raise Err(st.Failure(code="NO_WEBHOOK", message="This carrier sends no webhooks"))
