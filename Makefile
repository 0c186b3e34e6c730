# The two commands of the project. Both provision the machine first with the same script.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help up test lint

help:
	@echo "make up    arranca todo el servicio (Temporal, MySQL, PAC sandbox, worker, API)"
	@echo "make test  corre toda la suite de pruebas (lint, tipos, unitarias e integración)"

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
