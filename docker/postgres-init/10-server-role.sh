#!/bin/sh
# Runs once, when the postgres image initialises an empty data directory (files in
# /docker-entrypoint-initdb.d run in name order as POSTGRES_USER, the database owner).
#
# Creates the login role the server connects as, with the password from
# QUIZDUEL_SERVER_DB_PASSWORD. `duel-server migrate` (migration 003) then finds
# quizduel_server already there and only grants it what the server needs: no DDL, no
# owner rights. The role is cluster-wide, so a data volume that already exists keeps the
# role and password it got the first time (change it with ALTER ROLE ... PASSWORD).
set -eu

: "${QUIZDUEL_SERVER_DB_PASSWORD:?QUIZDUEL_SERVER_DB_PASSWORD must be set for the quizduel_server role}"

# psql reads the password from the environment (\getenv, psql 15) and quotes it with
# format(%L): it never appears on a command line, and quotes in it are safe.
psql -v ON_ERROR_STOP=1 --no-psqlrc \
    --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-${POSTGRES_USER:-postgres}}" <<'SQL'
\getenv server_password QUIZDUEL_SERVER_DB_PASSWORD
SELECT format('%s ROLE quizduel_server LOGIN PASSWORD %L',
              CASE WHEN EXISTS (SELECT FROM pg_roles WHERE rolname = 'quizduel_server')
                   THEN 'ALTER' ELSE 'CREATE' END,
              :'server_password')
\gexec
SQL
echo "10-server-role.sh: login role quizduel_server is ready"
