// Validation rules for organizations, clients and products, reusable by the CFDI validation engine.
export * from './catalogos';
export * from './claves';
export * from './codigo-postal';
export * from './entidades';
export * from './importes';
export * from './impuestos';
export * from './linea-impuesto';
export * from './regimen';
export * from './rfc';
export * from './tasa-o-cuota';
export * from './tipos';
export * from './uso-cfdi';
