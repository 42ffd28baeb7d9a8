//! Short synthesized sounds (WebAudio), muted on request; the choice is
//! remembered across visits.

use crate::console::LogFailure;
use crate::dom::{load_pref, save_pref};
use crate::game::Cue;
use web_sys::{AudioContext, AudioContextState, OscillatorType};

const MUTED_KEY: &str = "eldorado.muted";

pub struct Sound {
    muted: bool,
    /// Created at the first sound, which always follows a player gesture
    /// (browsers refuse to start audio before one).
    context: Option<AudioContext>,
}

impl Sound {
    pub fn new() -> Sound {
        Sound {
            muted: load_pref(MUTED_KEY).as_deref() == Some("1"),
            context: None,
        }
    }

    pub fn muted(&self) -> bool {
        self.muted
    }

    pub fn toggle(&mut self) {
        self.muted = !self.muted;
        save_pref(MUTED_KEY, Some(if self.muted { "1" } else { "0" }));
    }

    /// Called from a press (a user gesture): browsers let audio start only
    /// then, and the sounds come later, at the end of the reveal.
    pub fn unlock(&mut self) {
        if self.muted || self.context.is_some() {
            return;
        }
        self.context = AudioContext::new().ok();
    }

    pub fn play(&mut self, cue: Cue) {
        if self.muted {
            return;
        }
        // (frequency Hz, start s, length s) of each note.
        let notes: &[(f32, f64, f64)] = match cue {
            Cue::Refused => &[(196.0, 0.0, 0.18)],
            // Soft and short: a loss ends quietly.
            Cue::Lose => &[(294.0, 0.0, 0.14), (247.0, 0.13, 0.22)],
            // A rising sparkle.
            Cue::Extra => &[
                (784.0, 0.0, 0.09),
                (988.0, 0.07, 0.09),
                (1175.0, 0.14, 0.09),
                (1568.0, 0.21, 0.22),
            ],
            // A fanfare: the arpeggio, then the chord held, bells on top.
            Cue::Win => &[
                (523.0, 0.0, 0.12),
                (659.0, 0.1, 0.12),
                (784.0, 0.2, 0.12),
                (1047.0, 0.3, 0.5),
                (784.0, 0.3, 0.5),
                (659.0, 0.3, 0.5),
                (2093.0, 0.42, 0.12),
                (2637.0, 0.5, 0.12),
                (3136.0, 0.58, 0.3),
            ],
        };
        // Sound is a comfort: a failure of the audio stack never stops the
        // game, it only leaves a warning in the console.
        self.tones(notes, cue == Cue::Refused)
            .log_failure("playing a sound");
    }

    fn tones(
        &mut self,
        notes: &[(f32, f64, f64)],
        harsh: bool,
    ) -> Result<(), wasm_bindgen::JsValue> {
        if self.context.is_none() {
            self.context = Some(AudioContext::new()?);
        }
        let Some(ctx) = self.context.as_ref() else {
            return Ok(());
        };
        if ctx.state() == AudioContextState::Suspended {
            ctx.resume().log_failure("resuming the audio");
        }
        let now = ctx.current_time();
        for &(frequency, start, length) in notes {
            // Each note a fundamental and a quieter octave above: a bell
            // rather than a beep.
            let voices: [(OscillatorType, f32, f32); 2] = if harsh {
                [
                    (OscillatorType::Square, frequency, 0.1),
                    (OscillatorType::Square, frequency, 0.0),
                ]
            } else {
                [
                    (OscillatorType::Triangle, frequency, 0.1),
                    (OscillatorType::Sine, frequency * 2.0, 0.035),
                ]
            };
            for (kind, pitch, peak) in voices {
                if peak <= 0.0 {
                    continue;
                }
                let osc = ctx.create_oscillator()?;
                osc.set_type(kind);
                osc.frequency().set_value(pitch);
                let gain = ctx.create_gain()?;
                let level = gain.gain();
                level.set_value_at_time(0.0001, now + start)?;
                level.exponential_ramp_to_value_at_time(peak, now + start + 0.01)?;
                level.exponential_ramp_to_value_at_time(0.0001, now + start + length)?;
                osc.connect_with_audio_node(&gain)?;
                gain.connect_with_audio_node(&ctx.destination())?;
                osc.start_with_when(now + start)?;
                osc.stop_with_when(now + start + length + 0.02)?;
            }
        }
        Ok(())
    }
}

impl Default for Sound {
    fn default() -> Self {
        Sound::new()
    }
}

impl Drop for Sound {
    fn drop(&mut self) {
        if let Some(ctx) = self.context.take() {
            ctx.close().log_failure("closing the audio");
        }
    }
}
