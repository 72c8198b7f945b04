from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AttributionType1")


@_attrs_define
class AttributionType1:
    """
    Attributes:
        first_touch_at (datetime.datetime):
        channel (None | str | Unset):
        utm_source (None | str | Unset):
        utm_medium (None | str | Unset):
        utm_campaign (None | str | Unset):
        utm_term (None | str | Unset):
        utm_content (None | str | Unset):
        referrer (None | str | Unset):
        landing_page (None | str | Unset):
        gclid (None | str | Unset):
        fbclid (None | str | Unset):
        form_id (None | str | Unset):
        landing_page_id (None | str | Unset):
        landing_page_name (None | str | Unset):
    """

    first_touch_at: datetime.datetime
    channel: None | str | Unset = UNSET
    utm_source: None | str | Unset = UNSET
    utm_medium: None | str | Unset = UNSET
    utm_campaign: None | str | Unset = UNSET
    utm_term: None | str | Unset = UNSET
    utm_content: None | str | Unset = UNSET
    referrer: None | str | Unset = UNSET
    landing_page: None | str | Unset = UNSET
    gclid: None | str | Unset = UNSET
    fbclid: None | str | Unset = UNSET
    form_id: None | str | Unset = UNSET
    landing_page_id: None | str | Unset = UNSET
    landing_page_name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        first_touch_at = self.first_touch_at.isoformat()

        channel: None | str | Unset
        if isinstance(self.channel, Unset):
            channel = UNSET
        else:
            channel = self.channel

        utm_source: None | str | Unset
        if isinstance(self.utm_source, Unset):
            utm_source = UNSET
        else:
            utm_source = self.utm_source

        utm_medium: None | str | Unset
        if isinstance(self.utm_medium, Unset):
            utm_medium = UNSET
        else:
            utm_medium = self.utm_medium

        utm_campaign: None | str | Unset
        if isinstance(self.utm_campaign, Unset):
            utm_campaign = UNSET
        else:
            utm_campaign = self.utm_campaign

        utm_term: None | str | Unset
        if isinstance(self.utm_term, Unset):
            utm_term = UNSET
        else:
            utm_term = self.utm_term

        utm_content: None | str | Unset
        if isinstance(self.utm_content, Unset):
            utm_content = UNSET
        else:
            utm_content = self.utm_content

        referrer: None | str | Unset
        if isinstance(self.referrer, Unset):
            referrer = UNSET
        else:
            referrer = self.referrer

        landing_page: None | str | Unset
        if isinstance(self.landing_page, Unset):
            landing_page = UNSET
        else:
            landing_page = self.landing_page

        gclid: None | str | Unset
        if isinstance(self.gclid, Unset):
            gclid = UNSET
        else:
            gclid = self.gclid

        fbclid: None | str | Unset
        if isinstance(self.fbclid, Unset):
            fbclid = UNSET
        else:
            fbclid = self.fbclid

        form_id: None | str | Unset
        if isinstance(self.form_id, Unset):
            form_id = UNSET
        else:
            form_id = self.form_id

        landing_page_id: None | str | Unset
        if isinstance(self.landing_page_id, Unset):
            landing_page_id = UNSET
        else:
            landing_page_id = self.landing_page_id

        landing_page_name: None | str | Unset
        if isinstance(self.landing_page_name, Unset):
            landing_page_name = UNSET
        else:
            landing_page_name = self.landing_page_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "firstTouchAt": first_touch_at,
            }
        )
        if channel is not UNSET:
            field_dict["channel"] = channel
        if utm_source is not UNSET:
            field_dict["utmSource"] = utm_source
        if utm_medium is not UNSET:
            field_dict["utmMedium"] = utm_medium
        if utm_campaign is not UNSET:
            field_dict["utmCampaign"] = utm_campaign
        if utm_term is not UNSET:
            field_dict["utmTerm"] = utm_term
        if utm_content is not UNSET:
            field_dict["utmContent"] = utm_content
        if referrer is not UNSET:
            field_dict["referrer"] = referrer
        if landing_page is not UNSET:
            field_dict["landingPage"] = landing_page
        if gclid is not UNSET:
            field_dict["gclid"] = gclid
        if fbclid is not UNSET:
            field_dict["fbclid"] = fbclid
        if form_id is not UNSET:
            field_dict["formId"] = form_id
        if landing_page_id is not UNSET:
            field_dict["landingPageId"] = landing_page_id
        if landing_page_name is not UNSET:
            field_dict["landingPageName"] = landing_page_name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        first_touch_at = datetime.datetime.fromisoformat(d.pop("firstTouchAt"))

        def _parse_channel(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        channel = _parse_channel(d.pop("channel", UNSET))

        def _parse_utm_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        utm_source = _parse_utm_source(d.pop("utmSource", UNSET))

        def _parse_utm_medium(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        utm_medium = _parse_utm_medium(d.pop("utmMedium", UNSET))

        def _parse_utm_campaign(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        utm_campaign = _parse_utm_campaign(d.pop("utmCampaign", UNSET))

        def _parse_utm_term(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        utm_term = _parse_utm_term(d.pop("utmTerm", UNSET))

        def _parse_utm_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        utm_content = _parse_utm_content(d.pop("utmContent", UNSET))

        def _parse_referrer(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        referrer = _parse_referrer(d.pop("referrer", UNSET))

        def _parse_landing_page(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        landing_page = _parse_landing_page(d.pop("landingPage", UNSET))

        def _parse_gclid(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        gclid = _parse_gclid(d.pop("gclid", UNSET))

        def _parse_fbclid(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fbclid = _parse_fbclid(d.pop("fbclid", UNSET))

        def _parse_form_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        form_id = _parse_form_id(d.pop("formId", UNSET))

        def _parse_landing_page_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        landing_page_id = _parse_landing_page_id(d.pop("landingPageId", UNSET))

        def _parse_landing_page_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        landing_page_name = _parse_landing_page_name(d.pop("landingPageName", UNSET))

        attribution_type_1 = cls(
            first_touch_at=first_touch_at,
            channel=channel,
            utm_source=utm_source,
            utm_medium=utm_medium,
            utm_campaign=utm_campaign,
            utm_term=utm_term,
            utm_content=utm_content,
            referrer=referrer,
            landing_page=landing_page,
            gclid=gclid,
            fbclid=fbclid,
            form_id=form_id,
            landing_page_id=landing_page_id,
            landing_page_name=landing_page_name,
        )

        attribution_type_1.additional_properties = d
        return attribution_type_1

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
