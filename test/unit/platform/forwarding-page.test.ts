import { describe, expect, it } from 'vitest';
import { forwardingPageHtml } from '../../../src/platform/index.js';

describe('forwardingPageHtml', () => {
  it('forwards to the link at once, the link escaped as an attribute', () => {
    const html = forwardingPageHtml('http://127.0.0.1:4040/session?token=a&b="<x>');
    expect(html).toContain('<meta http-equiv="refresh" content="0;url=http://127.0.0.1:4040/session?token=a&amp;b=&quot;&lt;x&gt;">');
    expect(html).toContain('<meta name="referrer" content="no-referrer">');
    expect(html).not.toContain('"<x>');
  });
});
