# The two commands of the project. Both provision the machine first with the same script.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help up test lint campania

help:
	@echo "make up    arranca todo el servicio (Temporal, MySQL, PAC sandbox, worker, API)"
	@echo "make test  corre toda la suite de pruebas (lint, tipos, unitarias e integración)"
	@echo "make campania  campaña larga de confiabilidad: fuzz, fallas, reinicios, aislamiento, secretos y soak (RELIABILITY.md)"

up:
	@bash scripts/provision.sh up
	@TEMPORAL_CLI="$$(bash scripts/temporal-cli.sh --ruta)" exec node dist/scripts/stack.js

test:
	@bash scripts/provision.sh test
	@npm run -s lint
	@npm run -s typecheck
	@TEMPORAL_CLI="$$(bash scripts/temporal-cli.sh --ruta)" npx jest

lint:
	@npm run -s lint

# The long campaign (about 40 min); never part of `make test`.
campania:
	@bash scripts/campania.sh
