# ruff: noqa: E501  (the recorded digests, one a line)
"""The scanner's output on the seeded corpus is what it was when the digests were recorded.

The digests (``redact_corpus.digests``) hold the scanner to its recorded output on every
bench shape (20 KB and 1 MB) and on seeded texts of every kind of personal data, under five
policies: a change of engine or layout must not change what is stored.
"""

from eval_pipeline_tests.traces.redact import redact_corpus

RECORDED = {
    "percent/20000": "c65c22075c3e7cf196912854ef8d69ffa1867a53f12f1235f2326152e58b261b",
    "at/20000": "a2eae48a358018ba334508996831059c32fab454edcf4cd8e656ddae3509f5a8",
    "digits/20000": "8b0abd499277eb733ba71d913c10be0570804d2216a275de7126471ef5b051d9",
    "a/20000": "db21035575f1341e1715dee31ad9543affc63e98fc280d91538d00b2c3b8b654",
    "a_at/20000": "b58a6d47d2310f630c26fd4b635da471436e0c2354b985b1bfc194f4b49305e9",
    "clean_prose/20000": "d1551b44afa66b6600b8e234d5454686ec04178b05431fe1678b3a0ee47ccc09",
    "emails/20000": "081e2ea8665fd06f3cfa43077b52c6854c0a06fe8f5ce0ee8335ed127b14d6c6",
    "cards/20000": "ae1db129ab1fca6ae95626b043eb2fb796357bafa695a0f3dc0428428cd08a71",
    "phones/20000": "4e0d3f2b2118e3397e4ddcb9c49369e4a2498d1e368f00b9942bde42a85dc97e",
    "ibans/20000": "03021f2df782ce2ba9db2a9a73fece5a0176ed677f6043000d8ed48e0da4f8b9",
    "ssns/20000": "916d799d872c2e51c88f2e184671a99398644bedbc5579193cd6f0365dbf759e",
    "emails_percent_escaped/20000": "f9ec41d1ef55ef36c5fc8f4c5902e778e24b1293fcf1dd3c9114c528a8e88c4b",
    "emails_unicode_escaped/20000": "55c0febbcd139151661bdeb50fef0aef12b4b4c068230839d42a81cab885de8b",
    "dense_pii_prose/20000": "98145207e0503b43703e536684cc911c0f2532d7b1fc684debf4c75c2a088af5",
    "dense_pii_other_digit/20000": "ce4e915b7b01defde27abe7e659efcd8c184f719c0a833eaf3bc3b18840ca73c",
    "base64/20000": "068295b7979e77943238ce2206f1a8f8cb885a5c615d3aa99aacd4da865f1808",
    "json_payload/20000": "6b251bd0df565243e927741878126aaf3d536155926f63f04b58e9555a3bff42",
    "json_numbers/20000": "ca2b47d9c7debb926bd8c420f1ca2b889e99c79516898ad902ed33d0dbdccf8b",
    "percent/1000000": "6eeb967e2e07b8720a93a538c1ffab0e4f71689ddc24d554f441da59e5939780",
    "at/1000000": "dc3700063b548d8674fc1395216fa8cfab50782c0f9eee65ff14700e4925775a",
    "digits/1000000": "c9a99fd80f7777da056c83fdf6043db64cd234c57016a030377338a4e7ebfbbe",
    "a/1000000": "d1165fcd3ae4563033252e4155bb1b81ccd3f622be7988a4a2917d3a6f325b25",
    "a_at/1000000": "3d442278b61ddbbe66799fe546242a48d0c3c4deaea33b9424770f4873f18b6b",
    "clean_prose/1000000": "e19795b6ed1d0118e7eadebb2af6d10114349b86ae69bfcce6a0d862317b5bd1",
    "emails/1000000": "23f5d1d63ac6eb8ac7d3a394832a33743aba34031f0c6671183d9da7c6c4efc6",
    "cards/1000000": "9a10c8af497d562bd23256b5a34bd9d63e47ed7142b380d983be8f1ec2ff3a23",
    "phones/1000000": "3c8ae686189c3e3c7a12a5f5bc782bb92aca762238fa288b0a51bdbe2297e24b",
    "ibans/1000000": "a91f7c242bcc4b72b6c4d0508172f1d46b469df0691db7f827b8031f608706ac",
    "ssns/1000000": "4ce0413aefc2ff3c1959c222a501eb1208c2defb2649fe92f581659480bc3b74",
    "emails_percent_escaped/1000000": "67edd0870ee66c8a7a132ccc542c167cadac81634576e6c0658b7a3b3f880430",
    "emails_unicode_escaped/1000000": "a9df0086eba3db41b128cc0a66b34184595770e52f6528c4b153f711066142c6",
    "dense_pii_prose/1000000": "06cdf144be418caa75bd36bdc50ec0e348f24e09cfc7ef6d24cf941537043927",
    "dense_pii_other_digit/1000000": "26d74aa7e4c328e05666a8738d2a4b9576f1f879c77f5a63c99044088778b6ea",
    "base64/1000000": "95b73a8c660b2fb545fd89e6399c25c2950582455b88dca4900dd43021f6713c",
    "json_payload/1000000": "900000489ec7b1177060514c4bbd0d7d1169080ab65bdef663e62a333b300e73",
    "json_numbers/1000000": "b07ff583037e25940f1a6de812a54062f6f38b69998e96f9160da3a3276436ba",
    "texts/credit_card+iban+email+ssn+uk_nino+in_aadhaar+in_pan+ip_address+fr_nir+br_cpf+phone+uk_nhs": "602b8dc6355728c3030d3a76e1974d28396f45e47cb90b14cfcd7cc17963ecdd",
    "texts/email+phone": "085acf218f9b3afdc8af118afb7d4c71ac6f6417e88e505f77185553257d4100",
    "texts/credit_card+ssn": "a209105a00f8199f867475f2f40125a73dc395ca3d78fc105386b95c3acd244e",
    "texts/iban": "78d33c2a1c4757cf08f7c2b0d3b3a717279b9953aed0b68ce060840a2c106f9d",
    "texts/phone": "5572d3d30459133865c2f87251990115439bacf0dc42c1c87cc19bf923ce7590",
}  # fmt: skip


def test_the_corpus_redacts_to_the_recorded_digests() -> None:
    assert redact_corpus.digests() == RECORDED
