import { dirname } from 'node:path';
import express, { Router } from 'express';

// The human reference, rendered by Swagger UI from the npm package: served from here, no CDN.
const PAGINA = `<!doctype html>
<html lang="es">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API CFDI — referencia</title>
  <link rel="stylesheet" href="/docs/recursos/swagger-ui.css">
  <style>
    /* At phone width, wide tables, code and long schema names scroll or wrap inside their box, not the page. */
    .swagger-ui .markdown table, .swagger-ui .renderedMarkdown table { display: block; overflow-x: auto; }
    .swagger-ui .markdown pre, .swagger-ui .renderedMarkdown pre { overflow-x: auto; max-width: 100%; }
    .swagger-ui .model-container, .swagger-ui .model-box, .swagger-ui .model-title { max-width: 100%; overflow-wrap: anywhere; }
    .swagger-ui .wrapper { box-sizing: border-box; max-width: 100%; }
    @media (max-width: 600px) { .swagger-ui table { display: block; overflow-x: auto; } }
  </style>
</head>
<body>
  <div id="referencia"></div>
  <script src="/docs/recursos/swagger-ui-bundle.js"></script>
  <script src="/docs/inicio.js"></script>
</body>
</html>`;

// A file of its own rather than an inline script: the page's CSP allows scripts from this origin only.
const INICIO = `window.ui = SwaggerUIBundle({ url: '/openapi.yaml', dom_id: '#referencia', deepLinking: true });\n`;

/** This router's paths, as templates (the metrics label requests with them; they are not in the contract). */
export const RUTAS_DOCUMENTACION = ['/openapi.yaml', '/docs', '/docs/inicio.js', '/docs/recursos/{archivo}'];

export function rutasDocumentacion(rutaOpenApi: string): Router {
  const r = Router();
  r.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').sendFile(rutaOpenApi);
  });
  r.get('/docs', (_req, res) => {
    res.type('html').send(PAGINA);
  });
  r.get('/docs/inicio.js', (_req, res) => {
    res.type('application/javascript').send(INICIO);
  });
  r.use(
    '/docs/recursos',
    express.static(dirname(require.resolve('swagger-ui-dist/package.json')), { index: false, maxAge: '1d' }),
  );
  return r;
}
