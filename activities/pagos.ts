import { leerCertificado } from '../cfdi/csd';
import { fechaCfdi } from '../cfdi/fecha';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { validarComprobante } from '../cfdi/validacion';
import { nuevoId } from '../db/ids';
import type { RepositorioCertificados } from '../db/repositorios/certificados';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioOrganizaciones } from '../db/repositorios/organizaciones';
import type { RepositorioPagos } from '../db/repositorios/pagos';
import type { Transacciones } from '../db/transacciones';
import { alcanceSistema, type Modo, type Origen } from '../dominio/alcance';
import type { RechazoPago } from '../dominio/pago';
import { dtoPago } from '../presentacion/pago';
import { armarPago } from './armar-pago';
import { pasoDefinitivo, registroInexistente } from './definitivo';
import { comprobanteSinSello } from './comprobante';

/** What the payment workflow passes around: ids only; the request itself is in MySQL. */
export interface EntradaPago {
  pagoId: string;
  cuentaId: string;
  modo: Modo;
  /** The request that registered the payment (ids only), named by the `pago.creado` event. */
  origen?: Origen;
}

export type PasoPago =
  | { estado: 'registrado'; facturaPagoId: string }
  | { estado: 'rechazado'; error: RechazoPago };

export interface DepsPagos {
  pagos: RepositorioPagos;
  facturas: RepositorioFacturas;
  eventos: RepositorioEventos;
  organizaciones: RepositorioOrganizaciones;
  certificados: RepositorioCertificados;
  transacciones: Transacciones;
  catalogos: ConsultaCatalogos;
  ahora?: () => Date;
}

export function crearActividadesPagos(d: DepsPagos) {
  const ahora = d.ahora ?? (() => new Date());

  return {
    /**
     * The ledger step, in one transaction: locks the payment, then its invoices in id order (two payments
     * wait for each other instead of deadlocking), checks every rule against the current balances, and either refuses (nothing but the
     * refusal is written) or writes the payment CFDI's draft, the ledger rows and `pago.creado` together.
     * A second run finds the payment decided and changes nothing.
     */
    async registrarPagoEnLibro(e: EntradaPago): Promise<PasoPago> {
      const a = alcanceSistema(e);
      // Read before the transaction: the request never changes, and no query may wait for a second pool
      // connection while this one holds the invoices' locks (a full pool would wait on those locks).
      const pago = await d.pagos.obtener(a, e.pagoId);
      if (!pago) throw registroInexistente(`pago ${e.pagoId} inexistente`);
      const org = (await d.organizaciones.obtener(a, pago.organizacion_id))!;
      const cp = d.catalogos.codigoPostal(org.codigo_postal)!;
      const cert = await d.certificados.activoConSecretos(a, org.id);
      return d.transacciones.ejecutar(async (tx): Promise<PasoPago> => {
        const bloqueado = await d.pagos.bloquear(tx, a, e.pagoId);
        if (!bloqueado) throw registroInexistente(`pago ${e.pagoId} inexistente`);
        if (bloqueado.estado !== 'registrando') {
          const p = (await d.pagos.obtener(a, e.pagoId, tx))!;
          return p.estado === 'registrado'
            ? { estado: 'registrado', facturaPagoId: p.factura_pago_id! }
            : { estado: 'rechazado', error: p.error! };
        }
        // Every read after this lock sees the latest commit (READ COMMITTED, db/transacciones.ts): the ledger
        // read with the invoices includes every payment committed by whoever held them before.
        const ids = [...new Set(pago.solicitud.facturas_pagadas.map((f) => f.factura))];
        const facturas = await d.facturas.bloquearVarias(tx, a, ids);

        const rechazar = async (error: RechazoPago): Promise<PasoPago> => {
          await d.pagos.rechazar(tx, a, e.pagoId, error);
          return { estado: 'rechazado', error };
        };
        if (!cert || new Date(cert.valido_hasta).getTime() <= ahora().getTime()) {
          return rechazar({
            tipo: 'regla_de_negocio',
            codigo: 'sin_certificado_activo',
            mensaje:
              'La organización no tiene un certificado (CSD) activo y vigente para sellar el CFDI de pago.',
          });
        }
        const fecha = fechaCfdi(ahora(), cp.huso_horario);
        const paso = pasoDefinitivo('comprobante_invalido', 'No se pudo construir el CFDI de pago', () => {
          const armado = armarPago({
            pagoId: e.pagoId,
            solicitud: pago.solicitud,
            organizacionId: org.id,
            emisor: org,
            husoHorario: cp.huso_horario,
            facturas,
            fecha,
          });
          if (!armado.ok) return { armado };
          // The whole CFDI against the SAT matrix now, so a payment the PAC would refuse is never registered.
          const [violacion] = validarComprobante(
            comprobanteSinSello(armado.documento, fecha, leerCertificado(cert.cer)),
            d.catalogos,
            { ahora: ahora() },
          );
          return { armado, violacion };
        });
        if (!paso.ok) return rechazar({ tipo: 'regla_de_negocio', ...paso.error });
        const { armado, violacion } = paso.valor;
        if (!armado.ok) return rechazar(armado.rechazo);
        if (violacion) {
          return rechazar({
            tipo: 'regla_de_negocio',
            codigo: violacion.sat ?? violacion.codigo,
            mensaje: violacion.mensaje,
          });
        }

        const facturaPagoId = nuevoId('fac');
        armado.documento.entrada.folio = await d.facturas.siguienteFolio(tx, org.id, pago.solicitud.serie);
        await d.facturas.insertar(tx, a, {
          id: facturaPagoId,
          organizacion_id: org.id,
          cliente_id: armado.clienteId,
          tipo: 'pago',
          documento: armado.documento,
          timbrado_estado: 'pendiente',
        });
        await d.pagos.registrar(tx, a, e.pagoId, facturaPagoId, armado.parcialidades);
        await d.eventos.registrar(tx, a, 'pago.creado', dtoPago((await d.pagos.obtener(a, e.pagoId, tx))!));
        return { estado: 'registrado', facturaPagoId };
      });
    },
  };
}
