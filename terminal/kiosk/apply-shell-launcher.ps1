# Applies shell-launcher.xml (next to this script) through the MDM bridge WMI provider. Run it as
# SYSTEM, e.g. `psexec.exe -i -s powershell.exe -ExecutionPolicy Bypass -File apply-shell-launcher.ps1`,
# after installing the NSIS package per machine; then restart: kioskUser0 signs in and the till
# starts. Windows Enterprise, Education or IoT Enterprise (Shell Launcher is not in Home or Pro).
$ErrorActionPreference = 'Stop'
$configuration = Get-Content -Raw -Path (Join-Path $PSScriptRoot 'shell-launcher.xml')
$bridge = Get-CimInstance -Namespace 'root\cimv2\mdm\dmmap' -ClassName 'MDM_AssignedAccess'
$bridge.ShellLauncher = [System.Net.WebUtility]::HtmlEncode($configuration)
Set-CimInstance -CimInstance $bridge
Write-Output 'Shell Launcher configured: restart the machine.'
