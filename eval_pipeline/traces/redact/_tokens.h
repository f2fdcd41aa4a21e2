/* The keyed token of a value, and the scanner's cache of tokens by value.
 *
 * The token is ``[KIND:<24 hex>]``, the HMAC-SHA256 of ``KIND:value`` (RFC 2104, the key pads
 * hashed once, as ``pii._hmac_pads`` does). Dense texts repeat values (an SSN on every line)
 * and a look-up costs less than the hash, so each scanner keeps the tokens of the values it
 * has seen (``TokenCache``); a scan refers to a token by its entry there, so a match carries
 * no copy of it.
 */

#ifndef EVAL_PIPELINE_TOKENS_H
#define EVAL_PIPELINE_TOKENS_H

#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_CTX and SHA256_Transform: no allocation */
#include <Python.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <string.h>

#define TOKEN_HEX 24
#define DIGEST_SIZE (TOKEN_HEX / 2)

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

static void store_be32(unsigned char *out, uint32_t word)
{
    out[0] = (unsigned char)(word >> 24);
    out[1] = (unsigned char)(word >> 16);
    out[2] = (unsigned char)(word >> 8);
    out[3] = (unsigned char)word;
}

/* The last block of a SHA-256 message of ``size`` bytes (its first 64, the key pad, already
 * hashed into the state): the ``size - 64`` bytes at ``block`` padded as FIPS 180-4 says. */
static void pad_block(unsigned char *block, size_t size)
{
    size_t tail = size - 64;
    memset(block + tail, 0, 64 - tail);
    block[tail] = 0x80;
    uint64_t bits = (uint64_t)size * 8;
    for (int b = 0; b < 8; b++) {
        block[63 - b] = (unsigned char)(bits >> (8 * b));
    }
}

/* The first ``DIGEST_SIZE`` bytes of the HMAC of ``kind:value`` into ``out``. A message that
 * fits one block with its padding (55 bytes: every value but long emails) is padded here and
 * hashed by one ``SHA256_Transform`` per pad: ``SHA256_Update``/``SHA256_Final`` cost about
 * as much again as the compressions (buffering, cleansing), on 50k distinct values per MB. */
static void digest_of(const Keyed *keyed, const char *kind, const char *value, Py_ssize_t size,
                      unsigned char *out)
{
    size_t kind_size = strlen(kind), message = kind_size + 1 + (size_t)size;
    SHA256_CTX ctx = keyed->inner;
    if (message > 55) {
        unsigned char digest[SHA256_DIGEST_LENGTH];
        SHA256_Update(&ctx, kind, kind_size);
        SHA256_Update(&ctx, ":", 1);
        SHA256_Update(&ctx, value, (size_t)size);
        SHA256_Final(digest, &ctx);
        ctx = keyed->outer;
        SHA256_Update(&ctx, digest, sizeof digest);
        SHA256_Final(digest, &ctx);
        memcpy(out, digest, DIGEST_SIZE);
        return;
    }
    unsigned char block[64];
    memcpy(block, kind, kind_size);
    block[kind_size] = ':';
    memcpy(block + kind_size + 1, value, (size_t)size);
    pad_block(block, 64 + message);
    SHA256_Transform(&ctx, block);
    for (int w = 0; w < 8; w++) { /* the inner digest, the outer message */
        store_be32(block + 4 * w, ctx.h[w]);
    }
    pad_block(block, 64 + SHA256_DIGEST_LENGTH);
    ctx = keyed->outer;
    SHA256_Transform(&ctx, block);
    for (int w = 0; w < DIGEST_SIZE / 4; w++) {
        store_be32(out + 4 * w, ctx.h[w]);
    }
}

/* Tokens by (detector, value): open addressing over slots of (hash, entry) that start small
 * and double at half full, the entries appended to one arena. Its memory follows the distinct
 * values seen: the fixed 1.6 MB direct-mapped table it replaces, allocated per tokeniser,
 * cost a page fault per 4 KB and a cache miss per look-up even on a few thousand values.
 * A hash is kept in its slot, so a probe reads the arena only on a likely hit.
 *
 * An entry: the detector (1 byte), the value's size (2), its token's hex digits (``TOKEN_HEX``:
 * written once per value, not per match, which dense texts repeat), the value. Entries are
 * referred to by offset, which stays valid while the arena grows; the cache is emptied only
 * between scans (``cache_trim``), never during one. */
#define ENTRY_HEX 3
#define ENTRY_VALUE (ENTRY_HEX + TOKEN_HEX)
#define CACHE_KEEP ((size_t)2 << 20) /* arena bytes kept from one scan to the next */
#define ARENA_MAX ((size_t)INT32_MAX) /* offsets fit 31 bits (``Match.token``) */

typedef struct {
    uint32_t hash;
    uint32_t entry; /* the entry's offset + 1; 0: empty */
} CacheSlot;

typedef struct {
    CacheSlot *slots;
    size_t mask; /* the slot count - 1 (a power of two); 0 when there are none */
    size_t used;
    unsigned char *arena;
    size_t size, capacity;
} TokenCache;

static void cache_free(TokenCache *cache)
{
    PyMem_Free(cache->slots);
    PyMem_Free(cache->arena);
    memset(cache, 0, sizeof *cache);
}

/* Empties the cache when a scan leaves it above ``CACHE_KEEP``: what a scanner keeps
 * between texts stays bounded (a long text's values are dropped once it is redacted). */
static void cache_trim(TokenCache *cache)
{
    if (cache->size > CACHE_KEEP) {
        cache_free(cache);
    }
}

/* A word-at-a-time hash (the values are short; FNV's byte loop cost more than the probe). */
static uint32_t cache_hash(int detector, const char *value, Py_ssize_t size)
{
    uint64_t hash = 0x9E3779B97F4A7C15u * (uint64_t)(detector + 1) ^ (uint64_t)size;
    Py_ssize_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t word;
        memcpy(&word, value + i, 8);
        hash = (hash ^ word) * 0xFF51AFD7ED558CCDu;
        hash ^= hash >> 32;
    }
    if (i < size) {
        uint64_t word = 0;
        memcpy(&word, value + i, (size_t)(size - i));
        hash = (hash ^ word) * 0xFF51AFD7ED558CCDu;
    }
    hash ^= hash >> 33;
    hash *= 0xC4CEB9FE1A85EC53u;
    hash ^= hash >> 29;
    return (uint32_t)hash;
}

/* Doubles the slots (1024 at first), placing each entry again; -1 when out of memory. */
static int cache_grow(TokenCache *cache)
{
    size_t count = cache->mask ? (cache->mask + 1) * 2 : 1024;
    CacheSlot *slots = PyMem_Calloc(count, sizeof(CacheSlot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; cache->mask && i <= cache->mask; i++) {
        CacheSlot slot = cache->slots[i];
        if (slot.entry) {
            size_t at = slot.hash & (count - 1);
            while (slots[at].entry) {
                at = (at + 1) & (count - 1);
            }
            slots[at] = slot;
        }
    }
    PyMem_Free(cache->slots);
    cache->slots = slots;
    cache->mask = count - 1;
    return 0;
}

/* Starts loading the slot of ``hash``: in a large table the probe is a cache miss (40-50 ns,
 * against 150-200 ns for the hash it may save), so the scan asks for the next value's slot
 * before it probes for the current one (``claim``). */
static inline void cache_prefetch(const TokenCache *cache, uint32_t hash)
{
    if (cache->slots != NULL) {
        __builtin_prefetch(&cache->slots[hash & cache->mask]);
    }
}

/* The offset of the entry of ``value`` (``hash``: its ``cache_hash``), its token made and
 * added when new; -1 on error. */
static Py_ssize_t cache_entry(TokenCache *cache, const Keyed *keyed, int detector,
                              const char *kind, const char *value, Py_ssize_t size,
                              uint32_t hash)
{
    if ((cache->used + 1) * 2 > cache->mask + 1 && cache_grow(cache) < 0) {
        return -1;
    }
    size_t at = hash & cache->mask;
    for (; cache->slots[at].entry; at = (at + 1) & cache->mask) {
        if (cache->slots[at].hash != hash) {
            continue;
        }
        size_t offset = cache->slots[at].entry - 1;
        const unsigned char *entry = cache->arena + offset;
        if (entry[0] == detector && (entry[1] | entry[2] << 8) == size
            && memcmp(entry + ENTRY_VALUE, value, (size_t)size) == 0) {
            return (Py_ssize_t)offset;
        }
    }
    size_t need = cache->size + ENTRY_VALUE + (size_t)size;
    if (need > ARENA_MAX) {
        PyErr_NoMemory(); /* 2 GB of distinct values in one text */
        return -1;
    }
    if (need > cache->capacity) {
        size_t capacity = cache->capacity ? cache->capacity : 16384;
        while (capacity < need) {
            capacity *= 2;
        }
        unsigned char *arena = PyMem_Realloc(cache->arena, capacity);
        if (arena == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        cache->arena = arena;
        cache->capacity = capacity;
    }
    size_t offset = cache->size;
    unsigned char *entry = cache->arena + offset;
    entry[0] = (unsigned char)detector;
    entry[1] = (unsigned char)(size & 255);
    entry[2] = (unsigned char)(size >> 8);
    memcpy(entry + ENTRY_VALUE, value, (size_t)size);
    static const char hex[] = "0123456789abcdef";
    unsigned char digest[DIGEST_SIZE];
    digest_of(keyed, kind, value, size, digest);
    for (int b = 0; b < DIGEST_SIZE; b++) {
        entry[ENTRY_HEX + 2 * b] = (unsigned char)hex[digest[b] >> 4];
        entry[ENTRY_HEX + 2 * b + 1] = (unsigned char)hex[digest[b] & 15];
    }
    cache->size = need;
    cache->slots[at].hash = hash;
    cache->slots[at].entry = (uint32_t)(offset + 1);
    cache->used++;
    return (Py_ssize_t)offset;
}

#endif
