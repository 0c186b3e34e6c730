import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { ATRIBUTOS } from '../workflows/atributos';

const TIPO_PROTO: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  KEYWORD: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  TEXT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  INT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * Registers the project's search attributes that the namespace lacks. The dev server registers its
 * --search-attribute flags only when it creates its database, so attributes added later need this.
 */
export async function registrarAtributos(address: string, namespace: string): Promise<string[]> {
  const c = await Connection.connect({ address });
  try {
    const { customAttributes } = await c.operatorService.listSearchAttributes({ namespace });
    const faltan = Object.values(ATRIBUTOS).filter((k) => !(k.name in (customAttributes ?? {})));
    if (faltan.length) {
      await c.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(faltan.map((k) => [k.name, TIPO_PROTO[k.type]!])),
      });
    }
    return faltan.map((k) => k.name);
  } finally {
    await c.close();
  }
}
