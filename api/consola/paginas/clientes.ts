import type { Router } from 'express';
import type { Servicios } from '../../../composicion/servicios';

export function paginasClientes(_r: Router, _s: Servicios): void {}
