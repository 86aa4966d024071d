import type { HardwareDescription } from './operation/codec';

/** The H/W description's fields and limits belong to the operation codec (`@chain/tiers/codec`). */
export {
  HARDWARE_FIELDS,
  type HardwareDescription,
  MAX_HARDWARE_FIELD_BYTES,
} from './operation/codec';

/** Most devices listed per kind, and characters per text value: bounds the description's size. */
const MAX_DEVICES = 8;
const MAX_TEXT = 64;

const text = (value: unknown): string =>
  typeof value === 'string' ? value.trim().slice(0, MAX_TEXT) : '';
const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;

/**
 * Describes this machine with `systeminformation`, each field a JSON text:
 * - CPU: `{manufacturer, brand, cores, physicalCores, processors, speedGHz}`
 * - RAM: `{total, modules: [{size, type, clockSpeed}]}` (bytes, MHz)
 * - GPU: `{controllers: [{vendor, model, vram}]}` (vram in MB)
 * - DISK: `{devices: [{name, type, vendor, size, interface}], filesystems: [{fs, type, size, mount}]}`
 *
 * Serial numbers and identifiers are left out on purpose: the description goes on chain.
 */
export async function describeHardware(): Promise<HardwareDescription> {
  const si = (await import('systeminformation')).default;
  const [cpu, mem, memLayout, graphics, disks, filesystems] = await Promise.all([
    si.cpu(),
    si.mem(),
    si.memLayout().catch(() => []),
    si.graphics().catch(() => ({ controllers: [] })),
    si.diskLayout().catch(() => []),
    si.fsSize().catch(() => []),
  ]);
  return {
    CPU: JSON.stringify({
      manufacturer: text(cpu.manufacturer),
      brand: text(cpu.brand),
      cores: count(cpu.cores),
      physicalCores: count(cpu.physicalCores),
      processors: count(cpu.processors),
      speedGHz: typeof cpu.speed === 'number' && Number.isFinite(cpu.speed) ? cpu.speed : 0,
    }),
    RAM: JSON.stringify({
      total: count(mem.total),
      modules: memLayout.slice(0, MAX_DEVICES).map((m) => ({
        size: count(m.size),
        type: text(m.type),
        clockSpeed: count(m.clockSpeed),
      })),
    }),
    GPU: JSON.stringify({
      controllers: graphics.controllers.slice(0, MAX_DEVICES).map((g) => ({
        vendor: text(g.vendor),
        model: text(g.model),
        vram: count(g.vram),
      })),
    }),
    DISK: JSON.stringify({
      devices: disks.slice(0, MAX_DEVICES).map((d) => ({
        name: text(d.name),
        type: text(d.type),
        vendor: text(d.vendor),
        size: count(d.size),
        interface: text(d.interfaceType),
      })),
      filesystems: filesystems.slice(0, MAX_DEVICES).map((f) => ({
        fs: text(f.fs),
        type: text(f.type),
        size: count(f.size),
        mount: text(f.mount),
      })),
    }),
  };
}
