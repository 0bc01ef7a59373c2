// A button that copies a value (a new API token's secret, shown once) to the clipboard and
// says so; where the Clipboard API is refused it selects the text for Ctrl+C instead.
import { useState } from 'preact/hooks';

export function CopyButton(p: { value: string; label: string; target?: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(p.value);
      setSaid('Copied');
    } catch {
      const el = p.target ? document.getElementById(p.target) : null;
      if (el) getSelection()?.selectAllChildren(el);
      setSaid('Selected: press Ctrl+C to copy');
    }
  };
  return (
    <>
      <button type="button" onClick={() => void copy()} aria-label={p.label}>Copy</button>
      <span class="copied" role="status">{said}</span>
    </>
  );
}
