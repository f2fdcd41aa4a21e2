"""Phone numbers in national formats, validated by ``phonenumbers`` (Google's libphonenumber).

The catalogue's ``phone`` recognizer (``recognizers.yaml``) covers the forms it can tell by
shape alone: the international ``+`` form, NANP (``415 555 2671``) and national numbers with a
trunk ``0`` written in the UK style (``07700 900123``). Other national formats
(``01 23 45 67 89``, ``(11) 91234-5678``, ``03-1234-5678``, ``912 345 678``) look like any
group of digits, so the ``national_phone`` recognizer finds digits written in groups and
``phonenumbers`` decides (``national_phone`` below),
from each country's numbering plan, whether the digits are a valid number in one of
``REGIONS``. Measured on the labelled list in the tests (67 numbers of 20 countries, 29
look-alikes): the hand pattern alone finds 45 of 67, with it 67 of 67.

A look-up costs 0.1-3 ms (one parse per region until one is valid), far more than a pattern,
so a text gets at most ``LOOKUPS_PER_TEXT`` look-ups of values not seen before; past that, any
further grouped candidate of 7-15 digits is tokenised unchecked (a text that dense with digit
groups loses little by it, and nothing personal is stored). ``phonenumbers``'s own matcher
was measured too: 2-4 ms per candidate, too slow for a scanner run on every stored string.
"""

import re

import phonenumbers

REGIONS = (
    "US", "GB", "DE", "FR", "IN", "JP", "AU", "BR", "ES", "IT", "NL", "MX", "CN", "RU", "CH",
    "SE", "PL", "ZA", "KR", "IE", "CA", "AT", "BE", "PT", "TR", "AR", "NG", "EG", "ID", "PH",
)  # fmt: skip
"""Countries whose national formats are recognised without a ``+`` country code."""

LOOKUPS_PER_TEXT = 16
"""``phonenumbers`` look-ups of new values per scanned text (then: tokenised unchecked)."""

_NON_DIGIT = re.compile(r"\D")
_DATE = re.compile(r"(?:19|20)\d\d[-./]\d\d?[-./]\d\d?|\d\d?[-./]\d\d?[-./](?:19|20)\d\d")
"""A date at the start (``2024-05-15``, ``15.05.2024``): digit groups, but not a number."""
_GROUP_SEPARATOR = re.compile(r"\d[ ().-]+\d")


def digits_of(candidate: str) -> str | None:
    """The candidate's digits when they can be a phone number (7-15), else None."""
    digits = _NON_DIGIT.sub("", candidate)
    return digits if 7 <= len(digits) <= 15 else None


def national_phone(candidate: str) -> str | None:
    """The normalised number (E.164) when ``phonenumbers`` finds ``candidate`` valid, else None.

    With a ``+`` the country code is in the text; without one, each of ``REGIONS`` is tried.
    """
    if (
        digits_of(candidate) is None
        or _GROUP_SEPARATOR.search(candidate) is None
        or _DATE.match(candidate) is not None
    ):
        return None
    for region in (None,) if candidate.startswith("+") else REGIONS:
        try:
            number = phonenumbers.parse(candidate, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    return None


def unchecked_phone(candidate: str) -> str | None:
    """The value a candidate is tokenised as once a text's look-ups are spent."""
    digits = digits_of(candidate)
    return None if digits is None else ("+" if candidate.startswith("+") else "") + digits
