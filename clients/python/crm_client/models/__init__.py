"""Contains all the data models used in inputs/outputs"""

from .attribution_type_1 import AttributionType1
from .automation import Automation
from .automation_input import AutomationInput
from .automation_input_status_type_1 import AutomationInputStatusType1
from .automation_status import AutomationStatus
from .cancel_shipment_response_200 import CancelShipmentResponse200
from .city_candidate import CityCandidate
from .city_error import CityError
from .city_error_code import CityErrorCode
from .city_error_error import CityErrorError
from .city_error_status import CityErrorStatus
from .company import Company
from .company_input import CompanyInput
from .contact import Contact
from .contact_document import ContactDocument
from .contact_document_properties_item import ContactDocumentPropertiesItem
from .contact_input import ContactInput
from .conversation import Conversation
from .conversation_contact_type_1 import ConversationContactType1
from .conversation_stage import ConversationStage
from .create_automation_response_201 import CreateAutomationResponse201
from .create_company_response_201 import CreateCompanyResponse201
from .deal import Deal
from .deal_input import DealInput
from .deal_input_stage import DealInputStage
from .delivery import Delivery
from .delivery_status import DeliveryStatus
from .destination import Destination
from .error import Error
from .error_details_type_1 import ErrorDetailsType1
from .error_error_type_1 import ErrorErrorType1
from .event import Event
from .event_data import EventData
from .event_type import EventType
from .event_type_info import EventTypeInfo
from .event_type_info_schema import EventTypeInfoSchema
from .failed_rate import FailedRate
from .form import Form
from .form_fields import FormFields
from .form_fields_multipart import FormFieldsMultipart
from .form_fields_urlencoded import FormFieldsUrlencoded
from .generate_shipment_response_200 import GenerateShipmentResponse200
from .generate_shipment_response_201 import GenerateShipmentResponse201
from .get_automation_response_200 import GetAutomationResponse200
from .get_company_response_200 import GetCompanyResponse200
from .get_contact_response_200 import GetContactResponse200
from .get_conversation_stage_response_200 import GetConversationStageResponse200
from .get_deal_response_200 import GetDealResponse200
from .get_form_response_200 import GetFormResponse200
from .get_import_response_200 import GetImportResponse200
from .get_me_response_200 import GetMeResponse200
from .get_open_api_response_200 import GetOpenApiResponse200
from .get_pipeline_response_200 import GetPipelineResponse200
from .get_shipment_response_200 import GetShipmentResponse200
from .http_action import HttpAction
from .http_action_headers_type_0 import HttpActionHeadersType0
from .import_contacts_location_mode import ImportContactsLocationMode
from .import_contacts_response_200 import ImportContactsResponse200
from .import_input import ImportInput
from .import_input_location_mode_type_1 import ImportInputLocationModeType1
from .import_report import ImportReport
from .import_report_location_mode import ImportReportLocationMode
from .import_report_source import ImportReportSource
from .import_summary import ImportSummary
from .import_summary_location_mode import ImportSummaryLocationMode
from .import_summary_source import ImportSummarySource
from .import_warning import ImportWarning_
from .list_automations_response_200 import ListAutomationsResponse200
from .list_companies_response_200 import ListCompaniesResponse200
from .list_contacts_match_mode import ListContactsMatchMode
from .list_contacts_response_200 import ListContactsResponse200
from .list_contacts_sort_by import ListContactsSortBy
from .list_contacts_sort_order import ListContactsSortOrder
from .list_conversations_response_200 import ListConversationsResponse200
from .list_deals_response_200 import ListDealsResponse200
from .list_deals_stage import ListDealsStage
from .list_deliveries_response_200 import ListDeliveriesResponse200
from .list_deliveries_status import ListDeliveriesStatus
from .list_event_types_response_200 import ListEventTypesResponse200
from .list_forms_response_200 import ListFormsResponse200
from .list_imports_response_200 import ListImportsResponse200
from .list_municipalities_response_200 import ListMunicipalitiesResponse200
from .list_notifications_response_200 import ListNotificationsResponse200
from .list_pipelines_kind import ListPipelinesKind
from .list_pipelines_response_200 import ListPipelinesResponse200
from .list_shipments_response_200 import ListShipmentsResponse200
from .list_shipments_status import ListShipmentsStatus
from .list_states_response_200 import ListStatesResponse200
from .list_submissions_response_200 import ListSubmissionsResponse200
from .list_submissions_status import ListSubmissionsStatus
from .me import Me
from .me_organization import MeOrganization
from .me_plan_type_1 import MePlanType1
from .me_plan_type_1_modules import MePlanType1Modules
from .me_token import MeToken
from .me_user_type_1 import MeUserType1
from .me_user_type_1_role_type_1 import MeUserType1RoleType1
from .move_conversation_body import MoveConversationBody
from .move_conversation_response_200 import MoveConversationResponse200
from .municipality import Municipality
from .notification import Notification
from .package import Package
from .package_dimensions import PackageDimensions
from .pagination import Pagination
from .pipeline import Pipeline
from .pipeline_kind import PipelineKind
from .pipeline_stages_item import PipelineStagesItem
from .quote_shipment_response_200 import QuoteShipmentResponse200
from .rate import Rate
from .rates_input import RatesInput
from .recover_deliveries_body import RecoverDeliveriesBody
from .recover_deliveries_response_200 import RecoverDeliveriesResponse200
from .recover_deliveries_response_200_data import RecoverDeliveriesResponse200Data
from .rejected_row import RejectedRow
from .rejected_row_reason import RejectedRowReason
from .resolution import Resolution
from .resolution_data_type_2 import ResolutionDataType2
from .resolution_status import ResolutionStatus
from .retry_delivery_response_200 import RetryDeliveryResponse200
from .shipment import Shipment
from .shipment_city_error import ShipmentCityError
from .shipment_city_error_candidates_item import ShipmentCityErrorCandidatesItem
from .shipment_city_error_input import ShipmentCityErrorInput
from .shipment_city_error_reason import ShipmentCityErrorReason
from .shipment_event import ShipmentEvent
from .shipment_input import ShipmentInput
from .shipment_input_cod_type_1 import ShipmentInputCodType1
from .shipment_input_insurance_type_1 import ShipmentInputInsuranceType1
from .shipment_input_pickup_type_1 import ShipmentInputPickupType1
from .shipment_status import ShipmentStatus
from .state import State
from .submission import Submission
from .submission_fields import SubmissionFields
from .submission_status import SubmissionStatus
from .submit_form_response_200 import SubmitFormResponse200
from .submit_form_response_200_data import SubmitFormResponse200Data
from .submit_form_response_201 import SubmitFormResponse201
from .submit_form_response_201_data import SubmitFormResponse201Data
from .submit_public_form_response_200 import SubmitPublicFormResponse200
from .submit_public_form_response_200_data import SubmitPublicFormResponse200Data
from .submit_public_form_response_201 import SubmitPublicFormResponse201
from .submit_public_form_response_201_data import SubmitPublicFormResponse201Data
from .test_webhook_body import TestWebhookBody
from .test_webhook_response_200 import TestWebhookResponse200
from .test_webhook_response_200_data import TestWebhookResponse200Data
from .track_shipment_response_200 import TrackShipmentResponse200
from .trigger import Trigger
from .trigger_to_stage_type_1 import TriggerToStageType1
from .update_automation_response_200 import UpdateAutomationResponse200
from .update_company_response_200 import UpdateCompanyResponse200
from .update_contact_response_200 import UpdateContactResponse200
from .update_deal_response_200 import UpdateDealResponse200
from .update_notification_body import UpdateNotificationBody
from .update_notification_response_200 import UpdateNotificationResponse200
from .upsert_contact_response_200 import UpsertContactResponse200
from .upsert_contact_response_201 import UpsertContactResponse201

__all__ = (
    "AttributionType1",
    "Automation",
    "AutomationInput",
    "AutomationInputStatusType1",
    "AutomationStatus",
    "CancelShipmentResponse200",
    "CityCandidate",
    "CityError",
    "CityErrorCode",
    "CityErrorError",
    "CityErrorStatus",
    "Company",
    "CompanyInput",
    "Contact",
    "ContactDocument",
    "ContactDocumentPropertiesItem",
    "ContactInput",
    "Conversation",
    "ConversationContactType1",
    "ConversationStage",
    "CreateAutomationResponse201",
    "CreateCompanyResponse201",
    "Deal",
    "DealInput",
    "DealInputStage",
    "Delivery",
    "DeliveryStatus",
    "Destination",
    "Error",
    "ErrorDetailsType1",
    "ErrorErrorType1",
    "Event",
    "EventData",
    "EventType",
    "EventTypeInfo",
    "EventTypeInfoSchema",
    "FailedRate",
    "Form",
    "FormFields",
    "FormFieldsMultipart",
    "FormFieldsUrlencoded",
    "GenerateShipmentResponse200",
    "GenerateShipmentResponse201",
    "GetAutomationResponse200",
    "GetCompanyResponse200",
    "GetContactResponse200",
    "GetConversationStageResponse200",
    "GetDealResponse200",
    "GetFormResponse200",
    "GetImportResponse200",
    "GetMeResponse200",
    "GetOpenApiResponse200",
    "GetPipelineResponse200",
    "GetShipmentResponse200",
    "HttpAction",
    "HttpActionHeadersType0",
    "ImportContactsLocationMode",
    "ImportContactsResponse200",
    "ImportInput",
    "ImportInputLocationModeType1",
    "ImportReport",
    "ImportReportLocationMode",
    "ImportReportSource",
    "ImportSummary",
    "ImportSummaryLocationMode",
    "ImportSummarySource",
    "ImportWarning_",
    "ListAutomationsResponse200",
    "ListCompaniesResponse200",
    "ListContactsMatchMode",
    "ListContactsResponse200",
    "ListContactsSortBy",
    "ListContactsSortOrder",
    "ListConversationsResponse200",
    "ListDealsResponse200",
    "ListDealsStage",
    "ListDeliveriesResponse200",
    "ListDeliveriesStatus",
    "ListEventTypesResponse200",
    "ListFormsResponse200",
    "ListImportsResponse200",
    "ListMunicipalitiesResponse200",
    "ListNotificationsResponse200",
    "ListPipelinesKind",
    "ListPipelinesResponse200",
    "ListShipmentsResponse200",
    "ListShipmentsStatus",
    "ListStatesResponse200",
    "ListSubmissionsResponse200",
    "ListSubmissionsStatus",
    "Me",
    "MeOrganization",
    "MePlanType1",
    "MePlanType1Modules",
    "MeToken",
    "MeUserType1",
    "MeUserType1RoleType1",
    "MoveConversationBody",
    "MoveConversationResponse200",
    "Municipality",
    "Notification",
    "Package",
    "PackageDimensions",
    "Pagination",
    "Pipeline",
    "PipelineKind",
    "PipelineStagesItem",
    "QuoteShipmentResponse200",
    "Rate",
    "RatesInput",
    "RecoverDeliveriesBody",
    "RecoverDeliveriesResponse200",
    "RecoverDeliveriesResponse200Data",
    "RejectedRow",
    "RejectedRowReason",
    "Resolution",
    "ResolutionDataType2",
    "ResolutionStatus",
    "RetryDeliveryResponse200",
    "Shipment",
    "ShipmentCityError",
    "ShipmentCityErrorCandidatesItem",
    "ShipmentCityErrorInput",
    "ShipmentCityErrorReason",
    "ShipmentEvent",
    "ShipmentInput",
    "ShipmentInputCodType1",
    "ShipmentInputInsuranceType1",
    "ShipmentInputPickupType1",
    "ShipmentStatus",
    "State",
    "Submission",
    "SubmissionFields",
    "SubmissionStatus",
    "SubmitFormResponse200",
    "SubmitFormResponse200Data",
    "SubmitFormResponse201",
    "SubmitFormResponse201Data",
    "SubmitPublicFormResponse200",
    "SubmitPublicFormResponse200Data",
    "SubmitPublicFormResponse201",
    "SubmitPublicFormResponse201Data",
    "TestWebhookBody",
    "TestWebhookResponse200",
    "TestWebhookResponse200Data",
    "TrackShipmentResponse200",
    "Trigger",
    "TriggerToStageType1",
    "UpdateAutomationResponse200",
    "UpdateCompanyResponse200",
    "UpdateContactResponse200",
    "UpdateDealResponse200",
    "UpdateNotificationBody",
    "UpdateNotificationResponse200",
    "UpsertContactResponse200",
    "UpsertContactResponse201",
)
