from enum import StrEnum


class EventType(StrEnum):
    CONTACT_CREATED = "contact.created"
    CONVERSATION_STAGE_ENTERED = "conversation.stage_entered"
    DEAL_STAGE_CHANGED = "deal.stage_changed"
    FORM_SUBMITTED = "form.submitted"
    WEBHOOK_ENDPOINT_DISABLED = "webhook.endpoint_disabled"

    def __str__(self) -> str:
        return str(self.value)
