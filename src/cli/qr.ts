// A QR code of the pairing link for a terminal (stderr): two module rows per text line with half
// blocks, light modules drawn, so it scans on the dark terminals most people use. qrcode-generator
// (MIT, no dependencies) does the encoding; see docs/cloud-bridge.md for why it is here.
import qrcode from 'qrcode-generator';

export function terminalQr(text: string): string {
  const qr = qrcode(0, 'L');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const quiet = 2;
  // Outside the code (the quiet zone) counts as light.
  const dark = (r: number, c: number) => r >= 0 && c >= 0 && r < n && c < n && qr.isDark(r, c);
  const lines: string[] = [];
  for (let r = -quiet; r < n + quiet; r += 2) {
    let line = '';
    for (let c = -quiet; c < n + quiet; c++) {
      const top = !dark(r, c);
      const bottom = !dark(r + 1, c);
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    lines.push(line);
  }
  return lines.join('\n') + '\n';
}
