// libpq for Swift. Only DuelStore's PG* wrapper files import this module.
#ifndef QUIZDUEL_CLIBPQ_SHIM_H
#define QUIZDUEL_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
