"""Generated texts for the scanner's property tests: personal data of every kind in noise."""

from hypothesis import strategies as st

PIECES = (
    "ann@example.com",
    "a.b+c@mail.example.co.uk",
    "x@y.zz",
    "4111 1111 1111 1111",
    "4111.1111.1111.1111",
    "4111-1111-1111-1111",
    "4111111111111111",
    "GB82 WEST 1234 5698 7654 32",
    "gb82west12345698765432",
    "123-45-6789",
    "-123-45-6789-",
    "+44 20 7946 0958",
    "+1 (212) 555-0123",
    "(415) 555-2671",
    "1-800-555-0199",
    "415 555 2671",
    "07700 900123",
    "01 23 45 67 89",
    "(11) 91234-5678",
    "8 (495) 123-45-67",
    "2024-05-15",
    "٤١٥ ٥٥٥ ٢٦٧١",
)
TEXTS = st.lists(
    st.one_of(
        st.sampled_from(PIECES),
        st.text(alphabet="0123456789", min_size=1, max_size=24),
        st.text(alphabet="ab@._%+-()/ 19Z", max_size=12),
    ),
    max_size=120,
).map("".join)
"""Texts made of ``PIECES``, runs of digits and punctuation the patterns care about."""
