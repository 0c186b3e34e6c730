import type { MotivoCorreo } from '../dominio/correo';
import type { AdjuntoCorreo, MensajeCorreo } from './puerto';

/** What one email says, read from the invoice when it is sent. */
export interface DatosMensaje {
  correoId: string;
  motivo: MotivoCorreo;
  destinatarios: string[];
  emisor: { nombre: string; rfc: string; correo: string | null };
  receptor: { nombre: string; rfc: string };
  tipo: 'ingreso' | 'egreso' | 'pago';
  serie: string | null;
  folio: string | null;
  uuid: string;
  fechaTimbrado: string | null;
  total: string;
  moneda: string;
  /** The cancellation's reason when the invoice is cancelled (01…04). */
  motivoCancelacion: string | null;
  xml: string;
  pdf: Buffer | null;
  acuse: string | null;
}

// Each document's gender decides its article, "de" + article and the adjective: "la factura … cancelada",
// "del comprobante de pago … cancelado".
const DOCUMENTO: Record<
  DatosMensaje['tipo'],
  { nombre: string; articulo: string; deArticulo: string; cancelado: string; importe: string }
> = {
  ingreso: {
    nombre: 'factura',
    articulo: 'la',
    deArticulo: 'de la',
    cancelado: 'cancelada',
    importe: 'Total',
  },
  egreso: {
    nombre: 'nota de crédito',
    articulo: 'la',
    deArticulo: 'de la',
    cancelado: 'cancelada',
    importe: 'Total',
  },
  pago: {
    nombre: 'comprobante de pago',
    articulo: 'el',
    deArticulo: 'del',
    cancelado: 'cancelado',
    importe: 'Monto pagado',
  },
};

const MOTIVOS_CANCELACION: Record<string, string> = {
  '01': 'comprobante emitido con errores con relación',
  '02': 'comprobante emitido con errores sin relación',
  '03': 'no se llevó a cabo la operación',
  '04': 'operación nominativa relacionada en una factura global',
};

/** `A-123`, `123` or nothing: how people name an invoice. */
export const serieFolio = (d: Pick<DatosMensaje, 'serie' | 'folio'>) =>
  [d.serie, d.folio].filter((x) => x !== null && x !== '').join('-');

/** A file name any mail client keeps: the serie-folio and the UUID, nothing a file system refuses. */
export function nombreArchivo(
  d: Pick<DatosMensaje, 'serie' | 'folio' | 'uuid'>,
  extension: string,
  prefijo = '',
) {
  const base = [prefijo, serieFolio(d), d.uuid].filter(Boolean).join('_');
  return `${base.replace(/[^0-9A-Za-z._-]+/g, '-')}.${extension}`;
}

/** `1,234.50`: thousands separated, the decimals as stored. */
export function importe(total: string): string {
  const [enteros = '0', decimales] = total.split('.');
  const conComas = enteros.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return decimales === undefined ? conComas : `${conComas}.${decimales}`;
}

/** `2026-11-27T19:04:42` (the stamp's local time, as the TFD writes it) → `27/11/2026 19:04:42`. */
export function fechaLegible(fecha: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2}:\d{2})/.exec(fecha);
  return m ? `${m[3]}/${m[2]}/${m[1]} ${m[4]}` : fecha;
}

const escapar = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const mayuscula = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The message: subject, plain text and HTML in Spanish, the documents attached. */
export function armarMensaje(d: DatosMensaje, remitente: string): MensajeCorreo {
  const doc = DOCUMENTO[d.tipo];
  const sf = serieFolio(d);
  const nombreDoc = `${doc.nombre}${sf ? ` ${sf}` : ''}`;
  const cancelada = d.motivoCancelacion !== null;
  const soloCancelacion = d.motivo === 'cancelacion';
  const asunto = soloCancelacion
    ? `Cancelación ${doc.deArticulo} ${nombreDoc} de ${d.emisor.nombre}`
    : `${mayuscula(nombreDoc)} de ${d.emisor.nombre}${cancelada ? ` (${doc.cancelado})` : ''}`;

  const entrada = soloCancelacion
    ? `${d.emisor.nombre} canceló ante el SAT ${doc.articulo} ${nombreDoc} por ${importe(d.total)} ${d.moneda}.`
    : `${d.emisor.nombre} le envía ${doc.articulo} ${nombreDoc} por ${importe(d.total)} ${d.moneda}.`;
  const datos: [string, string][] = [
    ['Emisor', `${d.emisor.nombre} (${d.emisor.rfc})`],
    ['Receptor', `${d.receptor.nombre} (${d.receptor.rfc})`],
    ['Serie y folio', sf || 'sin serie ni folio'],
    ['Folio fiscal (UUID)', d.uuid],
    ...(d.fechaTimbrado ? [['Fecha de timbrado', fechaLegible(d.fechaTimbrado)] as [string, string]] : []),
    [doc.importe, `$${importe(d.total)} ${d.moneda}`],
    ...(cancelada
      ? [
          [
            'Cancelación',
            `motivo ${d.motivoCancelacion}, ${MOTIVOS_CANCELACION[d.motivoCancelacion!] ?? 'sin descripción'}`,
          ] as [string, string],
        ]
      : []),
  ];

  const adjuntos: AdjuntoCorreo[] = [];
  if (!soloCancelacion) {
    adjuntos.push({
      nombre: nombreArchivo(d, 'xml'),
      tipo: 'application/xml',
      contenido: Buffer.from(d.xml, 'utf8'),
    });
    if (d.pdf) adjuntos.push({ nombre: nombreArchivo(d, 'pdf'), tipo: 'application/pdf', contenido: d.pdf });
  }
  if (d.acuse && cancelada) {
    adjuntos.push({
      nombre: nombreArchivo(d, 'xml', 'Acuse-cancelacion'),
      tipo: 'application/xml',
      contenido: Buffer.from(d.acuse, 'utf8'),
    });
  }
  const queAdjunta = soloCancelacion
    ? d.acuse
      ? 'Adjuntamos el acuse de cancelación del SAT (XML).'
      : ''
    : `Adjuntamos el CFDI (XML)${d.pdf ? ' y su representación impresa (PDF)' : ''}${cancelada && d.acuse ? ', y el acuse de cancelación del SAT' : ''}.`;
  const pie = d.emisor.correo
    ? `Si tiene dudas, responda a este correo: le llegará a ${d.emisor.nombre}.`
    : 'Este correo se envió automáticamente; no lo responda.';

  const texto = [
    `Hola, ${d.receptor.nombre}:`,
    '',
    entrada,
    '',
    ...datos.map(([k, v]) => `${k}: ${v}`),
    '',
    ...(queAdjunta ? [queAdjunta, ''] : []),
    pie,
    '',
  ].join('\n');

  const filas = datos
    .map(
      ([k, v]) =>
        `<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0;color:#444;font-weight:600">${escapar(k)}</th><td style="padding:4px 0">${escapar(v)}</td></tr>`,
    )
    .join('');
  const html = `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>${escapar(asunto)}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1b1b1b">
<div style="max-width:600px;margin:0 auto;background:#ffffff;border:1px solid #d9dce1;border-radius:6px;padding:24px">
<h1 style="font-size:20px;margin:0 0 16px">${escapar(asunto)}</h1>
<p>Hola, ${escapar(d.receptor.nombre)}:</p>
<p>${escapar(entrada)}</p>
<table style="border-collapse:collapse;font-size:14px;margin:16px 0">${filas}</table>
${queAdjunta ? `<p>${escapar(queAdjunta)}</p>` : ''}
<p style="color:#555;font-size:13px">${escapar(pie)}</p>
</div></body></html>
`;

  const dominio = remitente.split('@')[1] ?? 'localhost';
  return {
    de: { nombre: d.emisor.nombre, direccion: remitente },
    para: d.destinatarios,
    responderA: d.emisor.correo,
    asunto,
    texto,
    html,
    adjuntos,
    messageId: `<${d.correoId}@${dominio}>`,
  };
}
