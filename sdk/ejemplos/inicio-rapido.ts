/**
 * Inicio rápido con el SDK: de una llave de prueba a una factura timbrada, su PDF y un webhook verificado.
 * Lo copia el README (sección «Inicio rápido»); `make test` lo compila en modo estricto y lo ejecuta contra el
 * servicio real (test/integration/sdk.test.ts).
 *
 *   CFDI_LLAVE=sk_test_… node inicio-rapido.js
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClienteCfdi, ErrorConflicto, verificarWebhook, type Evento, type Factura } from '@cfdi-api/sdk';

export interface OpcionesInicio {
  urlBase: string;
  llave: string;
  /** El CSD de prueba del SAT (EKU9003173C9) y su contraseña. */
  cer: string;
  key: string;
  contrasena: string;
  /** Dónde guardar el PDF. */
  pdf: string;
}

export async function inicioRapido(o: OpcionesInicio): Promise<{ factura: Factura; evento: Evento }> {
  const sdk = new ClienteCfdi({ llave: o.llave, urlBase: o.urlBase });

  // 1. Un receptor de webhooks en este equipo (en modo test se admiten http y loopback).
  let alRecibir: (e: Evento) => void = () => {};
  const recibido = new Promise<Evento>((r) => (alRecibir = r));
  let secreto = '';
  const receptor = createServer((req, res) => {
    const partes: Buffer[] = [];
    req.on('data', (p: Buffer) => partes.push(p));
    req.on('end', () => {
      try {
        // Sobre el cuerpo crudo: volver a serializar el JSON cambiaría la firma.
        const evento = verificarWebhook({
          cuerpo: Buffer.concat(partes),
          encabezados: req.headers,
          secretos: secreto,
        });
        res.writeHead(200).end();
        alRecibir(evento);
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => receptor.listen(0, '127.0.0.1', r));
  const { port } = receptor.address() as AddressInfo;

  try {
    // 2. El emisor y su CSD; repetir el ejemplo reutiliza los que ya existen.
    const org = await sdk.organizaciones
      .crear({
        rfc: 'EKU9003173C9',
        nombre: 'ESCUELA KEMPER URGATE',
        regimen_fiscal: '601',
        codigo_postal: '42501',
      })
      .catch((e: unknown) => {
        if (e instanceof ErrorConflicto && e.codigo === 'organizacion_duplicada') {
          return sdk.organizaciones.obtener('EKU9003173C9');
        }
        throw e;
      });
    if (!org.certificado_activo) {
      await sdk.certificados.subir({
        organizacion: org.id,
        cer: await readFile(o.cer),
        llave: await readFile(o.key),
        contrasena: o.contrasena,
      });
    }

    // 3. El receptor de la factura, como en su Constancia de Situación Fiscal.
    await sdk.clientes
      .crear({
        organizacion: org.id,
        rfc: 'MASO451221PM4',
        nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
        regimen_fiscal: '612',
        domicilio_fiscal: '80290',
        uso_cfdi: 'G03',
      })
      .catch((e: unknown) => {
        if (!(e instanceof ErrorConflicto && e.codigo === 'cliente_duplicado')) throw e;
      });

    // 4. El webhook: `secreto_firma` se muestra solo aquí.
    const webhook = await sdk.webhooks.crear({
      url: `http://127.0.0.1:${port}/webhooks`,
      eventos_suscritos: ['factura.timbrada'],
    });
    secreto = webhook.secreto_firma;

    // 5. La factura: se timbra al crearla (201), o sigue en segundo plano (202) y esperarTimbrado la sigue.
    const creada = await sdk.facturas.crear({
      organizacion: org.id,
      tipo: 'ingreso',
      cliente: 'MASO451221PM4',
      forma_pago: '03',
      conceptos: [
        {
          cantidad: '1',
          clave_prod_serv: '80111600',
          clave_unidad: 'E48',
          descripcion: 'Consultoría fiscal',
          valor_unitario: '1500.00',
          objeto_imp: '02',
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
        },
      ],
    });
    const factura = await sdk.facturas.esperarTimbrado(creada);

    // 6. El PDF, como bytes; y el evento firmado, ya verificado.
    await writeFile(o.pdf, await sdk.facturas.pdf(factura.id));
    const evento = await recibido;
    await sdk.webhooks.eliminar(webhook.id);
    return { factura, evento };
  } finally {
    receptor.close();
  }
}

if (require.main === module) {
  inicioRapido({
    urlBase: process.env.CFDI_URL ?? 'http://localhost:3000',
    llave: process.env.CFDI_LLAVE ?? '',
    cer: process.env.CFDI_CER ?? '../shared/sat/csd/valid-csd/EKU9003173C9_CSD_30001000000500003416.cer',
    key: process.env.CFDI_KEY ?? '../shared/sat/csd/valid-csd/EKU9003173C9_CSD_30001000000500003416.key',
    contrasena: process.env.CFDI_CONTRASENA ?? '12345678a',
    pdf: 'factura.pdf',
  }).then(
    ({ factura, evento }) => {
      process.stdout.write(`Factura ${factura.id} timbrada: UUID ${factura.uuid}; PDF en factura.pdf\n`);
      process.stdout.write(`Webhook verificado: ${evento.tipo} ${evento.id}\n`);
    },
    (e: unknown) => {
      process.stderr.write(`${String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
