// The kiosk start-up files (terminal/kiosk): the systemd unit checked by systemd's own verifier
// on a stand-in root (cage and the installed app present as stubs), and the Windows Shell Launcher
// configuration parsed as XML and checked against what the NSIS package installs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';

const KIOSK_DIR = fileURLToPath(new URL('../../kiosk/', import.meta.url));
const require = createRequire(import.meta.url);
// electron-builder's own XML parser (app-builder-lib -> plist -> @xmldom/xmldom).
const { DOMParser } = require(require.resolve('@xmldom/xmldom', { paths: [require.resolve('plist', { paths: [require.resolve('app-builder-lib')] })] })) as {
  DOMParser: new (options: { errorHandler: Record<string, (message: string) => void> }) => { parseFromString(text: string, type: string): XmlDocument };
};
interface XmlElement {
  getAttribute(name: string): string;
  getAttributeNS(namespace: string, name: string): string;
  getElementsByTagName(name: string): ArrayLike<XmlElement>;
}
interface XmlDocument {
  documentElement: XmlElement & { namespaceURI: string };
}

describe('kiosk start-up files', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** systemd-analyze verify on a root holding the unit, systemd's targets and stubs for what it runs. */
  function verify(unitText: string): { status: number | null; errors: string } {
    const root = mkdtempSync(join(tmpdir(), 'tapline-systemd-root-'));
    dirs.push(root);
    const units = join(root, 'etc/systemd/system');
    mkdirSync(units, { recursive: true });
    for (const file of readdirSync('/lib/systemd/system').filter((name) => name.endsWith('.target') || name.endsWith('.socket') || name.endsWith('.service'))) {
      try {
        copyFileSync(join('/lib/systemd/system', file), join(units, file));
      } catch {
        // dangling links to units this machine lacks
      }
    }
    // pcscd's socket as the pcscd package installs it (this machine may not have pcscd).
    writeFileSync(join(units, 'pcscd.socket'), '[Unit]\nDescription=PC/SC Smart Card Daemon Activation Socket\n[Socket]\nListenStream=/run/pcscd/pcscd.comm\n[Install]\nWantedBy=sockets.target\n');
    for (const stub of ['usr/bin/cage', 'opt/Tapline Terminal/tapline-terminal']) {
      mkdirSync(join(root, stub, '..'), { recursive: true });
      writeFileSync(join(root, stub), '#!/bin/sh\n');
      chmodSync(join(root, stub), 0o755);
    }
    writeFileSync(join(units, 'tapline-terminal.service'), unitText);
    const result = spawnSync('systemd-analyze', ['verify', `--root=${root}`, '--man=no', '--recursive-errors=no', 'tapline-terminal.service'], { encoding: 'utf8' });
    assert.equal(result.error, undefined, 'systemd-analyze runs (Debian: the systemd package)');
    return { status: result.status, errors: `${result.stdout}${result.stderr}`.trim() };
  }

  it("the Linux unit passes systemd's verifier: cage on tty1 as the kiosk user, after pcscd's socket, restarted always", () => {
    const unit = readFileSync(join(KIOSK_DIR, 'tapline-terminal.service'), 'utf8');
    assert.deepEqual(verify(unit), { status: 0, errors: '' });
    assert.match(unit, /^ExecStart=\/usr\/bin\/cage -s -- "\/opt\/Tapline Terminal\/tapline-terminal"/m);
    assert.match(unit, /^After=.*\bpcscd\.socket\b/m);
    assert.match(unit, /^Wants=.*\bpcscd\.socket\b/m);
    assert.match(unit, /^User=kiosk$/m);
    assert.match(unit, /^TTYPath=\/dev\/tty1$/m);
    assert.match(unit, /^Restart=always$/m);
    // The verifier does catch mistakes: it is not a rubber stamp.
    assert.match(verify(unit.replace('Restart=always', 'Restart=alwayz')).errors, /Failed to parse service restart specifier/);
  });

  it('the Windows Shell Launcher configuration is well-formed and runs the installed app full screen, restarted when it exits', () => {
    const problems: string[] = [];
    const parser = new DOMParser({ errorHandler: { warning: (message) => problems.push(message), error: (message) => problems.push(message), fatalError: (message) => problems.push(message) } });
    const document = parser.parseFromString(readFileSync(join(KIOSK_DIR, 'shell-launcher.xml'), 'utf8'), 'text/xml');
    assert.deepEqual(problems, []);
    assert.equal(document.documentElement.namespaceURI, 'http://schemas.microsoft.com/ShellLauncher/2018/Configuration');
    const shells = document.documentElement.getElementsByTagName('Shell');
    assert.equal(shells.length, 2);
    const kiosk = shells[1]!;
    // electron-builder.yml: productName "Tapline Terminal", NSIS per machine -> %ProgramFiles%\Tapline Terminal\Tapline Terminal.exe
    assert.equal(kiosk.getAttribute('Shell'), '%ProgramFiles%\\Tapline Terminal\\Tapline Terminal.exe');
    assert.equal(kiosk.getAttributeNS('http://schemas.microsoft.com/ShellLauncher/2019/Configuration', 'AllAppsFullScreen'), 'true');
    assert.equal(kiosk.getElementsByTagName('DefaultAction')[0]!.getAttribute('Action'), 'RestartShell');
    const config = document.documentElement.getElementsByTagName('Configs')[0]!;
    assert.equal(config.getElementsByTagName('AutoLogonAccount').length, 1);
    const profiles = document.documentElement.getElementsByTagName('Profile');
    assert.equal(profiles[0]!.getAttribute('Id'), profiles[1]!.getAttribute('Id'), 'the auto-logon account gets the kiosk profile');
    assert.match(readFileSync(join(KIOSK_DIR, 'apply-shell-launcher.ps1'), 'utf8'), /\$bridge\.ShellLauncher = \[System\.Net\.WebUtility\]::HtmlEncode\(\$configuration\)/);
  });
});
