import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The README's curl examples work as written: a query string typed into a URL must not need encoding (a `+`
 * reads as a space, `<…>` and spaces break the URL), and a value that does (an instant with an offset) goes
 * through `-G --data-urlencode`.
 */
const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
// A command continued with `\` is one command.
const comandos = README.replace(/\\\n\s*/g, ' ')
  .split('\n')
  .filter((l) => /^\s*(\$ )?curl /.test(l));

it('finds the curl examples', () => {
  expect(comandos.length).toBeGreaterThan(5);
});

it('no query string typed into a URL needs encoding', () => {
  const malas = comandos.flatMap((c) =>
    [...c.matchAll(/["']?(?:https?:\/\/)?[\w.:-]+\/v1\/[^\s"']*\?([^\s"']*)/g)]
      .map((m) => m[1]!)
      .filter((q) => /[+<> ]|%(?![0-9A-Fa-f]{2})/.test(q) || /=[^&]*[^\w.~%…,&=:-]/.test(q)),
  );
  expect(malas).toEqual([]);
});

it('the stuck stampings example passes creada_antes through --data-urlencode', () => {
  const ejemplo = comandos.find((c) => c.includes('creada_antes'));
  expect(ejemplo).toBeDefined();
  expect(ejemplo).toMatch(/ -G /);
  expect(ejemplo).toMatch(/--data-urlencode "creada_antes=/);
});
