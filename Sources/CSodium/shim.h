// libsodium for Swift: Argon2id password hashing, random tokens, generic hashing.
#ifndef QUIZDUEL_CSODIUM_SHIM_H
#define QUIZDUEL_CSODIUM_SHIM_H
#include <sodium.h>

// crypto_pwhash_STRBYTES and friends are macros that Swift imports as plain
// constants already; these wrappers exist for the ones defined through other
// macros, which Swift cannot import.
static inline size_t quizduel_pwhash_strbytes(void) { return crypto_pwhash_STRBYTES; }
static inline const char *quizduel_pwhash_strprefix(void) { return crypto_pwhash_argon2id_STRPREFIX; }
#endif
