# syntax=docker/dockerfile:1
# One image for every process (api, worker, pac-sandbox, migrate); docker-compose.yml picks the command.
# Debian rather than Alpine: the Temporal core bridge ships glibc binaries and Chromium comes from apt.
ARG NODE_IMAGE=node:20-bookworm-slim

# --- Compilation: full dependencies, TypeScript to dist/ ---
FROM ${NODE_IMAGE} AS compilacion
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY . .
RUN npm run build

# --- Production dependencies only, in their own stage so no dev package reaches the runtime ---
FROM ${NODE_IMAGE} AS dependencias
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev && npm cache clean --force

# --- Runtime ---
FROM ${NODE_IMAGE} AS ejecucion
# Chromium renders the invoice PDFs (puppeteer-core brings no browser); DejaVu covers accents and ñ.
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium chromium-headless-shell fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
  CHROMIUM_PATH=/usr/bin/chromium-headless-shell
WORKDIR /app
# Root-owned and read-only for the process user: the code cannot be rewritten at runtime.
COPY --from=dependencias /app/node_modules ./node_modules
COPY --from=compilacion /app/dist ./dist
COPY package.json openapi.yaml ./
# The self-invoicing portal's page, script and style sheet, served as they are (api/rutas/autofactura.ts).
COPY portal ./portal
COPY db/catalogos/datos ./db/catalogos/datos
# The node image's unprivileged user (uid 1000).
# The sandbox PAC's certificate volume: created here so the non-root user owns it.
RUN mkdir -p /var/lib/pac-sandbox && chown node:node /var/lib/pac-sandbox
USER node
EXPOSE 3000
CMD ["node", "dist/api/main.js"]
