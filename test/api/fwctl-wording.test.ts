// fwctl's messages as an operator reads them (issue 43, item 8): `fwctl trace` with options
// missing names them instead of printing the usage line alone. No daemon is needed: the
// command line is refused (64) before any request.
import { fwctl } from '../helpers/fwctl';

const env = { FWCTL_URL: 'http://127.0.0.1:9', FWCTL_TOKEN: 'unused' };

test('trace names the options that are missing', async () => {
  const one = await fwctl(['trace', '--src', '10.0.0.5', '--dst', '10.0.0.6'], env);
  expect({ code: one.code, err: one.stderr }).toEqual({ code: 64, err: 'fwctl trace: --proto is required (fwctl trace --help)\n' });
  const two = await fwctl(['trace', '--src', '10.0.0.5'], env);
  expect({ code: two.code, err: two.stderr }).toEqual({ code: 64, err: 'fwctl trace: --dst and --proto are required (fwctl trace --help)\n' });
});
