import QRCode from "qrcode";

/**
 * A QR code of `uri` as an SVG document, drawn on the server (`qrcode`): dark modules
 * on white with the standard quiet zone, error correction M (wallet apps read it from
 * a screen at a glance).
 */
export function renderQrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 4, color: { dark: "#000000", light: "#ffffff" } });
}
