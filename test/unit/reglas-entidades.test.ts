import { validarCliente, validarOrganizacion, validarProducto, type DatosProducto } from '../../cfdi/reglas';
import { catalogosCsv } from '../support/catalogos-csv';

const catalogos = catalogosCsv('2026-06-01');
const resumen = (errores: { codigo: string; parametro: string }[]) =>
  errores.map((e) => [e.codigo, e.parametro]);

describe('validarOrganizacion', () => {
  it('accepts a valid organization', () => {
    const datos = {
      rfc: 'EKU9003173C9',
      nombre: 'ESCUELA KEMPER URGATE',
      regimen_fiscal: '601',
      codigo_postal: '42501',
    };
    expect(validarOrganizacion(datos, catalogos)).toEqual([]);
  });

  it('reports every wrong field', () => {
    const errores = validarOrganizacion(
      { rfc: 'EKU9003173C9', regimen_fiscal: '605', codigo_postal: '00000' },
      catalogos,
    );
    expect(resumen(errores)).toEqual([
      ['regimen_no_aplica_persona', 'regimen_fiscal'],
      ['codigo_postal_invalido', 'codigo_postal'],
    ]);
    expect(errores.map((e) => e.sat)).toEqual(['CFDI40141', 'CFDI40126']);
    expect(
      resumen(
        validarOrganizacion(
          { rfc: 'eku9003173c9', regimen_fiscal: '601', codigo_postal: '42501' },
          catalogos,
        ),
      ),
    ).toEqual([['rfc_invalido', 'rfc']]);
  });
});

describe('validarCliente', () => {
  const cliente = {
    rfc: 'XIQB891116QE4',
    nombre: 'BERENICE XIMO QUEZADA',
    regimen_fiscal: '612',
    domicilio_fiscal: '06600',
    uso_cfdi: 'G03',
    correo: null,
  };

  it('accepts a valid client without warnings', () => {
    expect(validarCliente(cliente, catalogos)).toEqual({ errores: [], advertencias: [] });
  });

  it('accepts an incompatible uso_cfdi with a warning', () => {
    const { errores, advertencias } = validarCliente({ ...cliente, regimen_fiscal: '605' }, catalogos);
    expect(errores).toEqual([]);
    expect(resumen(advertencias)).toEqual([['uso_cfdi_incompatible', 'uso_cfdi']]);
  });

  it('uses the receiver codes of the SAT matrix', () => {
    const { errores } = validarCliente(
      { ...cliente, rfc: 'EKU9003173C9', regimen_fiscal: '612', domicilio_fiscal: '0660', uso_cfdi: 'X01' },
      catalogos,
    );
    expect(errores.map((e) => [e.codigo, e.sat])).toEqual([
      ['regimen_no_aplica_persona', 'CFDI40158'],
      ['codigo_postal_invalido', undefined],
      ['uso_cfdi_invalido', 'CFDI40160'],
    ]);
  });

  it('público en general takes 616 and S01', () => {
    const publico = { ...cliente, rfc: 'XAXX010101000', regimen_fiscal: '616', uso_cfdi: 'S01' };
    expect(validarCliente(publico, catalogos)).toEqual({ errores: [], advertencias: [] });
    expect(resumen(validarCliente({ ...publico, regimen_fiscal: '612' }, catalogos).errores)).toEqual([
      ['regimen_rfc_generico', 'regimen_fiscal'],
    ]);
    // 601 is already wrong for a 13-character RFC: one error, not two.
    expect(resumen(validarCliente({ ...publico, regimen_fiscal: '601' }, catalogos).errores)).toEqual([
      ['regimen_no_aplica_persona', 'regimen_fiscal'],
    ]);
  });
});

describe('validarProducto', () => {
  const producto: DatosProducto = {
    valor_unitario: '1500',
    clave_prod_serv: '43231500',
    clave_unidad: 'E48',
    objeto_imp: '02',
    impuestos_default: {
      traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
      retenciones: [
        { impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' },
        { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.106667' },
      ],
    },
  };

  it('accepts a valid product', () => {
    expect(validarProducto(producto, catalogos)).toEqual([]);
    expect(
      validarProducto({ ...producto, objeto_imp: '01', impuestos_default: undefined }, catalogos),
    ).toEqual([]);
  });

  it('reports every wrong field with its parameter', () => {
    const errores = validarProducto(
      {
        valor_unitario: '1.1234567',
        clave_prod_serv: '99999999',
        clave_unidad: 'ZZZ',
        objeto_imp: '02',
        impuestos_default: {
          traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.170000' }],
        },
      },
      catalogos,
    );
    expect(resumen(errores)).toEqual([
      ['precio_invalido', 'valor_unitario'],
      ['clave_prod_serv_invalida', 'clave_prod_serv'],
      ['clave_unidad_invalida', 'clave_unidad'],
      ['tasa_no_permitida', 'impuestos_default.traslados[0].tasa_o_cuota'],
    ]);
  });

  it('checks objeto_imp against impuestos_default', () => {
    expect(resumen(validarProducto({ ...producto, impuestos_default: null }, catalogos))).toEqual([
      ['impuestos_requeridos', 'impuestos_default'],
    ]);
    expect(resumen(validarProducto({ ...producto, objeto_imp: '01' }, catalogos))).toEqual([
      ['impuestos_no_permitidos', 'impuestos_default'],
    ]);
  });
});
