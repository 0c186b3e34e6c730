// The self-invoicing page: plain JavaScript, no dependencies. Every rule and message comes from the server
// (POST /autofactura/validacion runs the API's own checks); this file only moves data and focus around.
(function () {
  'use strict';

  /** How long the buyer pauses typing before their data is checked. */
  var PAUSA_MS = 350;
  var CAMPOS = ['rfc', 'nombre', 'regimen_fiscal', 'domicilio_fiscal', 'uso_cfdi', 'correo'];
  /** What to say for an empty required field (the only check made here: the rest is the server's). */
  var FALTA = {
    rfc: 'Escriba su RFC.',
    nombre: 'Escriba su nombre o razón social.',
    regimen_fiscal: 'Seleccione su régimen fiscal.',
    domicilio_fiscal: 'Escriba el código postal de su domicilio fiscal.',
    uso_cfdi: 'Seleccione el uso del CFDI.',
  };
  var MESES = [
    'enero',
    'febrero',
    'marzo',
    'abril',
    'mayo',
    'junio',
    'julio',
    'agosto',
    'septiembre',
    'octubre',
    'noviembre',
    'diciembre',
  ];

  var $ = function (id) {
    return document.getElementById(id);
  };

  // The key lives only in this page's memory and its input: never in the address bar, storage or a URL.
  var clave = '';
  var rfcFactura = '';
  /** Fields the buyer has left at least once: their errors show even when incomplete. */
  var tocados = {};
  var temporizador = null;
  var consulta = 0;

  // ------------------------------------------------------------------ status and errors

  function anunciar(texto) {
    $('estado').textContent = texto;
  }

  function errorDe(id, mensaje) {
    var campo = $(id);
    var p = $('error-' + id);
    if (!p) return;
    if (mensaje) {
      p.textContent = mensaje;
      p.hidden = false;
      if (campo) campo.setAttribute('aria-invalid', 'true');
    } else {
      p.textContent = '';
      p.hidden = true;
      if (campo) campo.removeAttribute('aria-invalid');
    }
  }

  function mensajeDe(cuerpo, status) {
    if (cuerpo && cuerpo.error && cuerpo.error.mensaje) return cuerpo.error.mensaje;
    if (status === 0) return 'No hay conexión con el servicio. Revise su conexión e intente de nuevo.';
    return 'Ocurrió un error inesperado. Intente de nuevo en unos momentos.';
  }

  // ------------------------------------------------------------------ HTTP

  /** POST with a JSON body; resolves to { status, cuerpo, respuesta } and never rejects. */
  function enviar(ruta, datos) {
    return fetch(ruta, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(datos),
      credentials: 'same-origin',
      cache: 'no-store',
    }).then(
      function (r) {
        var tipo = r.headers.get('Content-Type') || '';
        if (tipo.indexOf('application/json') === -1) return { status: r.status, cuerpo: null, respuesta: r };
        return r.json().then(
          function (cuerpo) {
            return { status: r.status, cuerpo: cuerpo, respuesta: r };
          },
          function () {
            return { status: r.status, cuerpo: null, respuesta: r };
          },
        );
      },
      function () {
        return { status: 0, cuerpo: null, respuesta: null };
      },
    );
  }

  function esperar(segundos) {
    return new Promise(function (listo) {
      setTimeout(listo, segundos * 1000);
    });
  }

  // ------------------------------------------------------------------ formatting

  /**
   * `2250.000000` as `$2,250.00`: the amount as sent (a decimal string, never a float), thousands separated,
   * zeros past the cents dropped.
   */
  function dinero(importe, moneda) {
    if (importe === null || importe === undefined) return '';
    var partes = String(importe).split('.');
    var enteros = partes[0].replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    var decimales = (partes[1] || '').replace(/0+$/, '');
    while (decimales.length < 2) decimales += '0';
    var texto = '$' + enteros + '.' + decimales;
    return moneda && moneda !== 'MXN' ? texto + ' ' + moneda : texto;
  }

  /** `1.500000` → `1.5`: quantities and unit prices without trailing zeros. */
  function numero(texto) {
    var s = String(texto);
    return s.indexOf('.') === -1 ? s : s.replace(/0+$/, '').replace(/\.$/, '');
  }

  /** A CFDI local time (`2026-12-05T13:42:10`, no zone) as the buyer reads it. */
  function fechaLocal(texto) {
    var m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(texto || '');
    if (!m) return texto || '';
    return Number(m[3]) + ' de ' + MESES[Number(m[2]) - 1] + ' de ' + m[1] + ', ' + m[4] + ':' + m[5];
  }

  function fila(dl, termino, valor, clase) {
    var div = document.createElement('div');
    if (clase) div.className = clase;
    var dt = document.createElement('dt');
    dt.textContent = termino;
    var dd = document.createElement('dd');
    dd.textContent = valor;
    div.appendChild(dt);
    div.appendChild(dd);
    dl.appendChild(div);
  }

  // ------------------------------------------------------------------ 1. the key

  function buscarRecibo() {
    var valor = $('clave').value.trim();
    errorDe('clave', '');
    if (!valor) {
      errorDe('clave', 'Escriba la clave de su ticket.');
      $('clave').focus();
      return Promise.resolve();
    }
    $('buscar').disabled = true;
    anunciar('Buscando su recibo…');
    return enviar('/autofactura/recibo', { clave: valor }).then(function (r) {
      $('buscar').disabled = false;
      if (r.status === 200 && r.cuerpo) {
        clave = valor;
        mostrarRecibo(r.cuerpo);
        return;
      }
      ocultar(['paso-recibo', 'paso-datos', 'paso-recuperar', 'paso-factura']);
      var mensaje = mensajeDe(r.cuerpo, r.status);
      errorDe('clave', mensaje);
      anunciar(mensaje);
      $('clave').focus();
    });
  }

  function ocultar(ids) {
    ids.forEach(function (id) {
      $(id).hidden = true;
    });
  }

  // ------------------------------------------------------------------ 2. the receipt

  function mostrarRecibo(r) {
    var marca = $('marca');
    $('nombre-emisor').textContent = r.emisor.nombre;
    var logo = $('logo');
    if (r.emisor.logo) {
      logo.src = r.emisor.logo;
      logo.alt = 'Logotipo de ' + r.emisor.nombre;
      logo.hidden = false;
    } else {
      logo.hidden = true;
      logo.removeAttribute('src');
    }
    marca.hidden = false;

    $('modo-prueba').hidden = r.modo !== 'test';
    $('r-emisor').textContent = r.emisor.nombre + ' (RFC ' + r.emisor.rfc + ')';
    $('r-fecha').textContent = fechaLocal(r.fecha);
    $('r-folio').textContent = r.folio || '';
    $('r-folio-fila').hidden = !r.folio;
    $('r-sucursal').textContent = r.sucursal || '';
    $('r-sucursal-fila').hidden = !r.sucursal;
    $('r-forma-pago').textContent = r.forma_pago.descripcion;

    var cuerpo = $('r-conceptos');
    cuerpo.textContent = '';
    r.conceptos.forEach(function (c) {
      var tr = document.createElement('tr');
      var concepto = document.createElement('td');
      var nombre = document.createElement('span');
      nombre.className = 'descripcion';
      nombre.textContent = c.descripcion;
      var detalle = document.createElement('span');
      detalle.className = 'detalle';
      detalle.textContent =
        numero(c.cantidad) +
        (c.unidad ? ' ' + c.unidad : '') +
        ' × ' +
        dinero(c.valor_unitario, r.moneda) +
        (c.descuento ? ' (descuento ' + dinero(c.descuento, r.moneda) + ')' : '');
      concepto.appendChild(nombre);
      concepto.appendChild(detalle);
      var importe = document.createElement('td');
      importe.className = 'numero';
      importe.textContent = dinero(c.importe, r.moneda);
      tr.appendChild(concepto);
      tr.appendChild(importe);
      cuerpo.appendChild(tr);
    });

    var totales = $('r-totales');
    totales.textContent = '';
    fila(totales, 'Subtotal', dinero(r.subtotal, r.moneda));
    if (r.descuento) fila(totales, 'Descuento', '−' + dinero(r.descuento, r.moneda));
    r.impuestos.forEach(function (i) {
      var signo = i.tipo === 'retencion' ? '−' : '';
      fila(totales, i.descripcion, i.importe === null ? 'exento' : signo + dinero(i.importe, r.moneda));
    });
    fila(totales, 'Total', dinero(r.total, r.moneda), 'total');

    $('r-vence').textContent =
      r.estado === 'vencido' || r.estado === 'facturado'
        ? ''
        : 'Puede facturarlo hasta el ' + fechaLocal(r.vence_en_local) + ' (hora local del comercio).';
    $('r-aviso').textContent = r.aviso || '';
    $('r-aviso').hidden = !r.aviso;

    $('paso-recibo').hidden = false;
    $('paso-factura').hidden = true;
    $('paso-datos').hidden = !r.facturable;
    $('paso-recuperar').hidden = r.estado !== 'facturado';
    anunciar(
      'Recibo de ' +
        r.emisor.nombre +
        ' por ' +
        dinero(r.total, r.moneda) +
        '.' +
        (r.aviso ? ' ' + r.aviso : ''),
    );
    $('titulo-recibo').focus();
    if (r.facturable) revisar(true);
  }

  // ------------------------------------------------------------------ 3. the buyer's data, checked as typed

  function valorDe(id) {
    var v = $(id).value;
    return id === 'nombre' ? v : v.trim();
  }

  /** Whether a field is far enough along to be judged: complete, chosen, or left once. */
  function listo(id, valor) {
    if (!valor) return false;
    if (tocados[id]) return true;
    if (id === 'rfc') return valor.length >= 12;
    if (id === 'domicilio_fiscal') return valor.length === 5;
    return id === 'regimen_fiscal' || id === 'uso_cfdi';
  }

  function datosParaRevisar() {
    var datos = {};
    CAMPOS.forEach(function (id) {
      var v = valorDe(id);
      if (listo(id, v)) datos[id] = v;
    });
    return datos;
  }

  function programarRevision() {
    clearTimeout(temporizador);
    temporizador = setTimeout(revisar, PAUSA_MS);
  }

  /** Asks the server about what is typed; only the newest answer counts. */
  function revisar(inicial) {
    var datos = inicial ? {} : datosParaRevisar();
    var mia = ++consulta;
    return enviar('/autofactura/validacion', datos).then(function (r) {
      if (mia !== consulta) return;
      var enviados = Object.keys(datos);
      if (r.status === 200 && r.cuerpo) {
        var porCampo = {};
        r.cuerpo.errores.forEach(function (e) {
          if (!porCampo[e.parametro]) porCampo[e.parametro] = e.mensaje;
        });
        enviados.forEach(function (id) {
          errorDe(id, porCampo[id] || '');
        });
        llenarOpciones('regimen_fiscal', r.cuerpo.regimenes_fiscales, 'Seleccione su régimen', porCampo);
        llenarOpciones('uso_cfdi', r.cuerpo.usos_cfdi, 'Seleccione el uso', porCampo);
      } else if (r.status === 400 && r.cuerpo && r.cuerpo.error) {
        // The contract's own check of a field: the API's message, on the field it names.
        var campo = r.cuerpo.error.parametro;
        enviados.forEach(function (id) {
          errorDe(id, id === campo ? r.cuerpo.error.mensaje : '');
        });
      }
    });
  }

  /**
   * Offers only what the SAT allows. A value chosen before that is no longer allowed stays selected, marked, with
   * the server's message beside it, so the buyer sees why.
   */
  function llenarOpciones(id, opciones, vacio, errores) {
    var select = $(id);
    var actual = select.value;
    var permitido = opciones.some(function (o) {
      return o.clave === actual;
    });
    select.textContent = '';
    var primera = document.createElement('option');
    primera.value = '';
    primera.textContent = vacio;
    select.appendChild(primera);
    opciones.forEach(function (o) {
      var op = document.createElement('option');
      op.value = o.clave;
      op.textContent = o.clave + ' — ' + o.descripcion;
      select.appendChild(op);
    });
    if (actual && !permitido) {
      var fuera = document.createElement('option');
      fuera.value = actual;
      fuera.textContent = actual + ' (no permitido)';
      select.appendChild(fuera);
      if (!errores[id] && tocados[id]) errorDe(id, 'Esta opción no se permite con los datos escritos.');
    }
    select.value = actual;
  }

  function faltantes() {
    var primero = null;
    Object.keys(FALTA).forEach(function (id) {
      if (!valorDe(id)) {
        errorDe(id, FALTA[id]);
        if (!primero) primero = id;
      }
    });
    return primero;
  }

  function solicitudFactura() {
    var datos = { clave: clave };
    CAMPOS.forEach(function (id) {
      var v = valorDe(id);
      if (v) datos[id] = v;
    });
    return datos;
  }

  /** Submits once: the button stays disabled until the invoice is shown or refused. */
  function facturar() {
    CAMPOS.forEach(function (id) {
      tocados[id] = true;
    });
    errorDe('datos', '');
    var falta = faltantes();
    if (falta) {
      anunciar('Faltan datos: revise los campos marcados.');
      $(falta).focus();
      return Promise.resolve();
    }
    var boton = $('facturar');
    if (boton.disabled) return Promise.resolve();
    boton.disabled = true;
    boton.setAttribute('aria-busy', 'true');
    var datos = solicitudFactura();
    rfcFactura = datos.rfc;
    anunciar('Emitiendo su factura…');
    return pedirFactura('/autofactura/facturar', datos).then(function (ok) {
      boton.removeAttribute('aria-busy');
      if (!ok) boton.disabled = false;
    });
  }

  /**
   * A request answered with an invoice: stamped, or 202 while stamping, in which case the same request is made
   * again after Retry-After (the server answers for the same invoice). Resolves true once the invoice is shown.
   */
  function pedirFactura(ruta, datos, intentos) {
    intentos = intentos || 0;
    return enviar(ruta, datos).then(function (r) {
      if ((r.status === 200 || r.status === 201) && r.cuerpo) {
        mostrarFactura(r.cuerpo, datos.correo);
        return true;
      }
      if (r.status === 202 && r.cuerpo && intentos < 60) {
        anunciar('Su factura se está timbrando con el SAT; esto puede tardar unos segundos…');
        var espera = Number(r.respuesta.headers.get('Retry-After')) || 2;
        return esperar(Math.min(espera, 10)).then(function () {
          return pedirFactura(ruta, datos, intentos + 1);
        });
      }
      mostrarRechazo(r, ruta === '/autofactura/factura' ? 'rfc-recuperar' : null);
      return false;
    });
  }

  /** A refusal: on the field it names, else above the submit button; always said in the status region. */
  function mostrarRechazo(r, campoRfc) {
    var mensaje = mensajeDe(r.cuerpo, r.status);
    var parametro = r.cuerpo && r.cuerpo.error ? r.cuerpo.error.parametro : null;
    var campo = campoRfc || (CAMPOS.indexOf(parametro) === -1 ? null : parametro);
    if (campo) {
      errorDe(campo, mensaje);
      $(campo).focus();
    } else {
      errorDe('datos', mensaje);
      var boton = $('facturar');
      boton.disabled = false;
      boton.focus();
    }
    anunciar(mensaje);
  }

  function recuperar() {
    var rfc = $('rfc-recuperar').value.trim();
    errorDe('rfc-recuperar', '');
    if (!rfc) {
      errorDe('rfc-recuperar', 'Escriba el RFC con que facturó.');
      $('rfc-recuperar').focus();
      return Promise.resolve();
    }
    var boton = $('recuperar');
    boton.disabled = true;
    rfcFactura = rfc;
    anunciar('Buscando su factura…');
    return pedirFactura('/autofactura/factura', { clave: clave, rfc: rfc }).then(function () {
      boton.disabled = false;
    });
  }

  // ------------------------------------------------------------------ 4. the invoice

  function mostrarFactura(f, correo) {
    $('f-uuid').textContent = f.uuid || '';
    $('f-folio').textContent = [f.serie, f.folio].filter(Boolean).join('-') || '—';
    $('f-fecha').textContent = fechaLocal(f.fecha_timbrado);
    $('f-receptor').textContent = f.receptor.nombre + ' (RFC ' + f.receptor.rfc + ')';
    $('f-total').textContent = dinero(f.total, f.moneda);
    var aviso = $('f-correo');
    aviso.textContent = correo ? 'También la enviamos a ' + correo + ', con el XML y el PDF.' : '';
    aviso.hidden = !correo;
    ocultar(['paso-datos', 'paso-recuperar']);
    $('paso-factura').hidden = false;
    anunciar('Su factura está timbrada. Folio fiscal ' + f.uuid + '.');
    $('titulo-factura').focus();
  }

  /** Downloads need the key: a POST, its answer saved under the name the server gives. */
  function descargar(formato, boton) {
    if (boton.disabled) return Promise.resolve();
    boton.disabled = true;
    anunciar(formato === 'pdf' ? 'Preparando el PDF…' : 'Preparando el XML…');
    return fetch('/autofactura/' + formato, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ clave: clave, rfc: rfcFactura }),
      cache: 'no-store',
    })
      .then(function (r) {
        if (!r.ok) {
          return r.json().then(
            function (c) {
              throw new Error(mensajeDe(c, r.status));
            },
            function () {
              throw new Error(mensajeDe(null, r.status));
            },
          );
        }
        var disposicion = r.headers.get('Content-Disposition') || '';
        var nombre = (/filename="([^"]+)"/.exec(disposicion) || [])[1] || 'factura.' + formato;
        return r.blob().then(function (b) {
          var url = URL.createObjectURL(b);
          var a = document.createElement('a');
          a.href = url;
          a.download = nombre;
          a.hidden = true;
          document.body.appendChild(a);
          a.click();
          a.remove();
          setTimeout(function () {
            URL.revokeObjectURL(url);
          }, 10000);
          anunciar('Se descargó ' + nombre + '.');
        });
      })
      .catch(function (e) {
        anunciar(e && e.message ? e.message : mensajeDe(null, 0));
      })
      .then(function () {
        boton.disabled = false;
      });
  }

  // ------------------------------------------------------------------ wiring

  document.addEventListener('DOMContentLoaded', function () {
    $('form-clave').addEventListener('submit', function (e) {
      e.preventDefault();
      buscarRecibo();
    });
    $('form-datos').addEventListener('submit', function (e) {
      e.preventDefault();
      facturar();
    });
    $('form-recuperar').addEventListener('submit', function (e) {
      e.preventDefault();
      recuperar();
    });
    $('descargar-xml').addEventListener('click', function () {
      descargar('xml', this);
    });
    $('descargar-pdf').addEventListener('click', function () {
      descargar('pdf', this);
    });

    ['rfc', 'rfc-recuperar', 'clave'].forEach(function (id) {
      // RFCs and keys are upper case: typed either way, kept as the SAT writes them.
      $(id).addEventListener('input', function () {
        var inicio = this.selectionStart;
        var fin = this.selectionEnd;
        var mayusculas = this.value.toUpperCase();
        if (mayusculas !== this.value) {
          this.value = mayusculas;
          this.setSelectionRange(inicio, fin);
        }
      });
    });
    CAMPOS.forEach(function (id) {
      var campo = $(id);
      campo.addEventListener(campo.tagName === 'SELECT' ? 'change' : 'input', programarRevision);
      campo.addEventListener('blur', function () {
        if (!valorDe(id)) return;
        tocados[id] = true;
        programarRevision();
      });
    });

    // The QR's address carries the key: take it, then drop it from the address bar and the history entry.
    var parametros = new URLSearchParams(window.location.search);
    var desdeQr = parametros.get('clave');
    if (parametros.has('clave')) window.history.replaceState(null, '', window.location.pathname);
    if (desdeQr) {
      $('clave').value = desdeQr.toUpperCase();
      buscarRecibo();
    } else {
      $('clave').focus();
    }
  });
})();
