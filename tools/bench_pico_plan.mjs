// Scenario for the pico-emulator (build/pico-emulator): plays the plan that
// tools/bench_pico.py writes (a JSON file named by the BENCH_PLAN environment variable).
//
//   BENCH_PLAN=plan.json node build/pico-emulator/src/cli.mjs run tools/bench_pico_plan.mjs \
//       --app DEVICE_DIR --out OUT_DIR --save-fs
//
// Plan: {name, i2c_devices, tm1637, steps: [...]}. Steps:
//   {"serial": TEXT, "timeout_ms": N}          run until the serial output shows TEXT
//   {"wait_ms": N}                              run N ms of emulated time
//   {"until_ms": T}                             run until emulated time T ms (since the first reset)
//   {"align": {"period_ms": P, "phase_ms": F}}  run until the next time t with t mod P == F
//       (t since the latest boot, as the board's ticks_ms counts)
//   {"press": PIN, "ms": N, "label": L}         a mark "key:L", then the button held N ms
//       ("if_triggered": true: only when the last after_* step's event came)
//   {"after_i2c": {bus, addr, data0, min_len}, "delay_ms": D, "timeout_ms": N, "label": L}
//       run until an I2C write matching the filter ends, then D ms more; a mark
//       "trig:L" (or "trig-miss:L" after the timeout)
//   {"after_bus": {"pins": [...]}, "delay_ms": D, "timeout_ms": N, "label": L}
//       run until display-bus traffic (any I2C/SPI transaction, an edge on those pins)
//   {"after_flash": "erase"|"program", "delay_ms": D, "timeout_ms": N, "label": L}
//       run until the flash model starts such an operation, then D ms more (marks as above)
//   {"cycles": NAME}                            a log event {"ev": "cycles", name, active}:
//       the CPU's active cycles so far (not asleep in WFE; over every boot of the run)
//   {"emulator": STEP}                          one of the emulator's own JSON steps
//       (set_pin, mark, power_cut, expect_serial, ...: its README, "Scenarios")
// The analysis reads the log (marks, input edges, bus traffic), never this file's results.
import { readFileSync } from 'node:fs';

const plan = JSON.parse(readFileSync(process.env.BENCH_PLAN, 'utf8'));
const MS = 1e6;

async function afterI2c(h, f, timeoutMs) {
  const events = h.sim.log.events;
  let i = events.length;
  const since = h.sim.nanos / 1000;
  const match = (e) =>
    e.ev === 'i2c' && e.op === 'w' && e.t >= since &&
    (f.bus === undefined || e.bus === f.bus) &&
    (f.addr === undefined || e.addr === f.addr) &&
    (f.data0 === undefined || (e.data && e.data[0] === f.data0)) &&
    (f.min_len === undefined || (e.data && e.data.length >= f.min_len));
  const find = () => {
    const ev = h.sim.log.events;
    for (; i < ev.length; i++) if (match(ev[i])) return true;
    return false;
  };
  return h.runFor(timeoutMs * MS, find);
}

async function afterBus(h, f, timeoutMs) {
  let i = h.sim.log.events.length;
  const since = h.sim.nanos / 1000;
  const pins = new Set(f.pins ?? []);
  const find = () => {
    const ev = h.sim.log.events;
    for (; i < ev.length; i++) {
      const e = ev[i];
      if (e.t >= since && (e.ev === 'i2c' || e.ev === 'spi' || (e.ev === 'gpio' && pins.has(e.pin)))) return true;
    }
    return false;
  };
  return h.runFor(timeoutMs * MS, find);
}

async function afterFlash(h, kind, timeoutMs) {
  const count = () => (kind === 'erase' ? h.sim.flashStats.erases : h.sim.flashStats.programs);
  const base = count();
  return h.runFor(timeoutMs * MS, () => count() > base);
}

export default {
  name: plan.name,
  i2c_devices: plan.i2c_devices,
  tm1637: plan.tm1637,
  async run(h) {
    let triggered = false;
    for (const s of plan.steps) {
      if ('serial' in s) await h.expectSerial(s.serial, s.timeout_ms ?? 10000);
      else if ('wait_ms' in s) await h.wait(s.wait_ms);
      else if ('until_ms' in s) {
        const left = s.until_ms * MS - h.sim.nanos;
        if (left > 0) await h.runFor(left);
      } else if ('align' in s) {
        // on the board's clock: ticks_ms counts from the latest (re)boot
        const p = s.align.period_ms * MS;
        const f = s.align.phase_ms * MS;
        const sinceBoot = h.sim.nanos - (h.sim.timeBaseNs ?? 0);
        let left = (f - (sinceBoot % p) + p) % p;
        if (left < 1000) left += p;
        await h.runFor(left);
      } else if ('press' in s) {
        if (s.if_triggered && !triggered) continue;
        h.mark(`key:${s.label}`);
        await h.press(s.press, s.ms ?? 60);
      } else if ('after_i2c' in s || 'after_flash' in s || 'after_bus' in s) {
        const t = s.timeout_ms ?? 2000;
        const ok = 'after_i2c' in s ? await afterI2c(h, s.after_i2c, t)
          : 'after_bus' in s ? await afterBus(h, s.after_bus, t)
          : await afterFlash(h, s.after_flash, t);
        h.mark(`${ok ? 'trig' : 'trig-miss'}:${s.label}`);
        triggered = ok;
        if (ok && s.delay_ms) await h.wait(s.delay_ms);
      } else if ('cycles' in s) {
        h.sim.log.write(h.sim._stamp({ ev: 'cycles', name: s.cycles, active: h.sim.totalActiveCycles }));
      } else if ('emulator' in s) {
        await h.step(s.emulator);
      } else throw new Error(`bench plan: unknown step ${JSON.stringify(s)}`);
    }
  },
};
