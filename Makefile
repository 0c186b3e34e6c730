# The two commands of the project. Both provision the machine first with the same script.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help up test test-unit test-repositorios test-flujos test-e2e lint campania

help:
	@echo "make up    arranca todo el servicio (Temporal, MySQL, Mailpit, PAC sandbox, worker, API)"
	@echo "make test  corre toda la suite de pruebas: los cuatro niveles de abajo (lint, tipos y unitarias en segundo plano)"
	@echo "make test-unit          lint, tipos y pruebas unitarias (sin MySQL, Temporal ni Chromium)"
	@echo "make test-repositorios  contratos de los repositorios: la memoria y MariaDB"
	@echo "make test-flujos        los workflows sobre Temporal con actividades simuladas; historias"
	@echo "make test-e2e           de punta a punta: API, Temporal, MariaDB, Chromium y PAC reales"
	@echo "make campania  campaña larga de confiabilidad: fuzz, fallas, reinicios, aislamiento, secretos y soak (RELIABILITY.md)"

up:
	@bash scripts/provision.sh up
	@TEMPORAL_CLI="$$(bash scripts/temporal-cli.sh --ruta)" exec node dist/scripts/stack.js

test:
	@bash scripts/provision.sh test
	@bash scripts/pruebas.sh --fondo "estatico unit" repositorios flujos e2e

test-unit:
	@bash scripts/provision.sh unit
	@bash scripts/pruebas.sh estatico unit

test-repositorios:
	@bash scripts/provision.sh repositorios
	@bash scripts/pruebas.sh repositorios

test-flujos:
	@bash scripts/provision.sh flujos
	@bash scripts/pruebas.sh flujos

test-e2e:
	@bash scripts/provision.sh test
	@bash scripts/pruebas.sh e2e

lint:
	@npm run -s lint

# The long campaign (about 40 min); never part of `make test`.
campania:
	@bash scripts/campania.sh
