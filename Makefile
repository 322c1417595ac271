# The two commands a newcomer needs; each installs what it needs first (scripts/deps).
#   make run                     the service, with an embedded Postgres unless DATABASE_URL is set
#   make run ARGS="--port 9000"  the same with flags (scripts/run serve --help lists them)
#   make test                    the whole suite (Swift, browser, schema, deployment checks)
# Without make: scripts/run and scripts/test do the same.
.PHONY: run test test-citus migrate bench drills

run:
	scripts/run $(ARGS)

test:
	scripts/test

# The Citus cluster suite: a coordinator and two workers on loopback (needs the citus extension
# in PostgreSQL 15; docs/SCALING.md says how to get it).
test-citus:
	Tests/citus/run

# Apply the migrations as the database owner (DATABASE_URL), for a least-privileged server.
migrate:
	swift build -c release --product duel-server
	.build/release/duel-server migrate $(ARGS)

bench:
	bench/run

drills:
	bench/drills
