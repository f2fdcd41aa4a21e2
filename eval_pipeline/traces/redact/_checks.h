/* The checks and normalisations of ``pii``'s detectors, and the keyed token of a value.
 *
 * Each function takes one match (ASCII: every precise pattern matches ASCII characters only)
 * and writes the normalised value ``pii``'s check returns, or answers that the check fails:
 * card (separators dropped, 13-19 digits, Luhn), IBAN (spaces dropped, upper case, mod 97),
 * email (lower case), SSN (as matched), phone (digits, ``+`` kept, 7-15 digits, not one digit
 * repeated). The token is ``[KIND:<24 hex>]``, the HMAC-SHA256 of ``KIND:value`` (RFC 2104,
 * the key pads hashed once, as ``pii._hmac_pads`` does).
 */

#ifndef EVAL_PIPELINE_CHECKS_H
#define EVAL_PIPELINE_CHECKS_H

#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_CTX: a stack copy per token, no allocation */
#include <openssl/sha.h>
#include <stdint.h>
#include <string.h>

#define VALUE_MAX 700  /* longer than any match (the longest, an email, is 665) */
#define TOKEN_HEX 24

/* Card: separators dropped; 13-19 digits passing Luhn. Returns the value length or 0. */
static Py_ssize_t card_value(const char *match, Py_ssize_t size, char *out)
{
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        if (match[i] >= '0' && match[i] <= '9') {
            out[n++] = match[i];
        }
    }
    if (n < 13 || n > 19) {
        return 0;
    }
    int total = 0;
    for (Py_ssize_t i = n - 1, index = 0; i >= 0; i--, index++) {
        int value = out[i] - '0';
        if (index % 2) {
            value = value * 2 > 9 ? value * 2 - 9 : value * 2;
        }
        total += value;
    }
    return total % 10 == 0 ? n : 0;
}

static int base36(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    return (c >= 'a' ? c - 'a' : c - 'A') + 10;
}

/* IBAN: spaces dropped, upper case; 15-34 characters passing mod 97. Length or 0. */
static Py_ssize_t iban_value(const char *match, Py_ssize_t size, char *out)
{
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        char c = match[i];
        if (c != ' ') {
            out[n++] = (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
        }
    }
    if (n < 15 || n > 34) {
        return 0;
    }
    int rest = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        int value = base36(out[(j + 4) % n]); /* rearranged: the first four moved to the end */
        rest = (value >= 10 ? rest * 100 + value : rest * 10 + value) % 97;
    }
    return rest == 1 ? n : 0;
}

static Py_ssize_t email_value(const char *match, Py_ssize_t size, char *out)
{
    for (Py_ssize_t i = 0; i < size; i++) {
        char c = match[i];
        out[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    return size;
}

static Py_ssize_t ssn_value(const char *match, Py_ssize_t size, char *out)
{
    memcpy(out, match, (size_t)size);
    return size;
}

/* Phone (the hand-written forms): "+" if it starts so, then its 7-15 digits, not all one. */
static Py_ssize_t phone_value(const char *match, Py_ssize_t size, char *out)
{
    Py_ssize_t n = 0;
    int plus = size > 0 && match[0] == '+';
    if (plus) {
        out[n++] = '+';
    }
    int same = 1;
    for (Py_ssize_t i = 0; i < size; i++) {
        if (match[i] >= '0' && match[i] <= '9') {
            out[n++] = match[i];
            same = same && match[i] == out[plus];
        }
    }
    Py_ssize_t digits = n - plus;
    return (digits < 7 || digits > 15 || same) ? 0 : n;
}

typedef struct {
    SHA256_CTX inner, outer; /* after the key's inner and outer pads */
} Keyed;

static void keyed_init(Keyed *keyed, const unsigned char *key, size_t size)
{
    unsigned char block[64] = {0}, pad[64];
    if (size > 64) {
        SHA256(key, size, block);
    } else {
        memcpy(block, key, size);
    }
    for (int i = 0; i < 64; i++) {
        pad[i] = block[i] ^ 0x36;
    }
    SHA256_Init(&keyed->inner);
    SHA256_Update(&keyed->inner, pad, 64);
    for (int i = 0; i < 64; i++) {
        pad[i] = block[i] ^ 0x5c;
    }
    SHA256_Init(&keyed->outer);
    SHA256_Update(&keyed->outer, pad, 64);
}

/* The first ``TOKEN_HEX / 2`` bytes of the HMAC of ``kind:value`` into ``out``. */
static void digest_of(const Keyed *keyed, const char *kind, const char *value, Py_ssize_t size,
                      unsigned char *out)
{
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256_CTX ctx = keyed->inner;
    SHA256_Update(&ctx, kind, strlen(kind));
    SHA256_Update(&ctx, ":", 1);
    SHA256_Update(&ctx, value, (size_t)size);
    SHA256_Final(digest, &ctx);
    ctx = keyed->outer;
    SHA256_Update(&ctx, digest, sizeof digest);
    SHA256_Final(digest, &ctx);
    memcpy(out, digest, TOKEN_HEX / 2);
}

/* Tokens of values seen before, by value: dense texts repeat values (an SSN on every line),
 * and a look-up costs less than the hash. Direct-mapped: a colliding value replaces the one
 * in its slot (correctness never depends on a hit). */
#define CACHE_SLOTS 32768 /* 1.6 MB, allocated on the first token */
#define CACHE_VALUE 36 /* longer values (long emails) are not cached */

typedef struct {
    unsigned char detector; /* 0: empty, else the detector + 1 */
    unsigned char size;
    char value[CACHE_VALUE];
    unsigned char digest[TOKEN_HEX / 2];
} CacheSlot;

static CacheSlot *cache_slot(CacheSlot *cache, int detector, const char *value, Py_ssize_t size)
{
    uint32_t hash = 2166136261u ^ (uint32_t)detector;
    for (Py_ssize_t i = 0; i < size; i++) {
        hash = (hash ^ (unsigned char)value[i]) * 16777619u;
    }
    return &cache[(hash ^ (hash >> 15)) & (CACHE_SLOTS - 1)];
}

#endif
