/** What the sandbox says about itself at GET /salud. */
export const VERSION_SANDBOX = 'pac-sandbox/1.0';
/** RfcProvCertif of every sandbox stamp. */
export const RFC_PAC_SANDBOX = 'SPR190613I52';
