import { describe, expect, it, vi } from 'vitest';
import { createNgrokProvider, isFinalTunnelError, loadNgrokLibrary, type NgrokForwardOptions, type NgrokLibrary } from '../../../src/tunnel/index.js';
import { createManualClock } from '../../helpers/manual-clock.js';

describe('ngrok in process (@ngrok/ngrok)', () => {
  it('the real package loads, and offline it fails with a mapped code, never a raw error', async () => {
    const library = await loadNgrokLibrary();
    expect(library).toBeDefined();
    const provider = createNgrokProvider({ authtoken: 'not_a_real_token_0123456789', openTimeoutMs: 15_000 });
    const error = await provider.open({ localPort: 4141 }).catch((e: unknown) => e);
    // This machine has no route to ngrok: "failed to connect session" and no errorCode (seen with 1.7.0).
    // With a network the service answers ERR_NGROK_105 for this token instead.
    expect(['ngrok_unreachable', 'ngrok_authtoken_invalid']).toContain((error as { code?: string }).code);
  });

  it('without NGROK_AUTHTOKEN: ngrok_authtoken_missing, final, before the library is even loaded', async () => {
    const load = vi.fn(loadNgrokLibrary);
    const error = await createNgrokProvider({ authtoken: undefined, load }).open({ localPort: 4141 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ngrok_authtoken_missing' });
    expect(isFinalTunnelError(error)).toBe(true);
    expect(load).not.toHaveBeenCalled();
  });

  it('the package not installed: ngrok_not_installed, final, saying how to add it', async () => {
    const error = await createNgrokProvider({ authtoken: 'tok', load: async () => undefined }).open({ localPort: 4141 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ngrok_not_installed' });
    expect((error as { hint?: string }).hint).toContain('npm install @ngrok/ngrok');
    expect(isFinalTunnelError(error)).toBe(true);
  });

  /**
   * A library that behaves as @ngrok/ngrok 1.7 does once connected (which needs
   * ngrok's service, so it cannot be the real one here): forward() resolves a
   * Listener whose url() is the public URL, the session reports
   * onStatusChange('closed') when it drops, and close() ends the listener.
   */
  function connectedLibrary(url: string) {
    const seen: { options?: NgrokForwardOptions; closed: number } = { closed: 0 };
    const library: NgrokLibrary = {
      async forward(options) {
        seen.options = options;
        return { url: () => url, close: async () => void (seen.closed += 1) };
      },
    };
    return { library, seen };
  }

  it('forwards the proxy with the static domain; a closed session is a lost tunnel; close ends the listener', async () => {
    const { library, seen } = connectedLibrary('https://my-shop.ngrok-free.dev');
    const provider = createNgrokProvider({ authtoken: 'tok', domain: 'my-shop.ngrok-free.dev', load: async () => library });
    const connection = await provider.open({ localPort: 4141 });
    expect(connection.url).toBe('https://my-shop.ngrok-free.dev');
    expect(seen.options).toMatchObject({ addr: '127.0.0.1:4141', authtoken: 'tok', domain: 'my-shop.ngrok-free.dev' });
    const lost = new Promise<string>((resolve) => connection.onLost(resolve));
    seen.options!.onStatusChange!('closed');
    await expect(lost).resolves.toMatch(/session closed/);
    await connection.close();
    await connection.close();
    expect(seen.closed).toBe(1);
  });

  it('a session that never connects is tunnel_open_timeout after the open timeout on its clock; a late listener is closed', async () => {
    // A library whose forward() answers only when the test says (the real one hangs so without a route to ngrok).
    let connect: () => void = () => undefined;
    let closed = 0;
    const library: NgrokLibrary = {
      forward: () => new Promise((resolve) => (connect = () => resolve({ url: () => 'https://late.ngrok-free.app', close: async () => void (closed += 1) }))),
    };
    const clock = createManualClock();
    const opening = createNgrokProvider({ authtoken: 'tok', openTimeoutMs: 20_000, clock, load: async () => library }).open({ localPort: 4141 }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(clock.nextTimerIn()).toBe(20_000));
    clock.advance(19_999);
    clock.advance(1);
    expect(await opening).toMatchObject({ code: 'tunnel_open_timeout' });
    expect(clock.pendingTimers()).toBe(0);
    connect();
    await vi.waitFor(() => expect(closed).toBe(1));
  });
});
