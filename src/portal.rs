//! The page's messages to the operator's portal that frames it, and the
//! portal's to the page (`window.postMessage`, types of
//! `eldorado_api::{PageMessage, ParentMessage}`).
//!
//! Both ways are held to the portal origins of `GET /api/config` (the http
//! origins of `--frame-ancestors`): the page posts to each of them as the
//! target origin, never `*`, so the browser delivers a message only if the
//! parent really is on one; and it acts on a message only if it comes from
//! its parent window on one of them.

use crate::api::{PageMessage, ParentMessage};
use crate::console::LogFailure;

pub struct Portal {
    /// The window that frames the page; `None` when it is not framed.
    parent: Option<web_sys::Window>,
    origins: Vec<String>,
    /// After `close`: the page says nothing more.
    silent: bool,
}

impl Portal {
    /// The page's own parent, if it is framed.
    pub fn of_page() -> Portal {
        let parent = web_sys::window().and_then(|window| {
            let parent = window.parent().ok().flatten()?;
            // Unframed, a window is its own parent.
            (!js_sys::Object::is(&parent, &window)).then_some(parent)
        });
        Portal::with_parent(parent)
    }

    /// Framed by `parent` (the tests stand in for a portal with a window
    /// of their own).
    pub fn with_parent(parent: Option<web_sys::Window>) -> Portal {
        Portal {
            parent,
            origins: Vec::new(),
            silent: false,
        }
    }

    /// The origins of the configuration; until then nothing is exchanged.
    pub fn set_origins(&mut self, origins: Vec<String>) {
        self.origins = origins;
    }

    pub fn knows_origin(&self, origin: &str) -> bool {
        self.origins.iter().any(|o| o == origin)
    }

    pub fn is_framed(&self) -> bool {
        self.parent.is_some()
    }

    pub fn silence(&mut self) {
        self.silent = true;
    }

    pub fn post(&self, message: &PageMessage) {
        let Some(parent) = self.parent.as_ref().filter(|_| !self.silent) else {
            return;
        };
        if self.origins.is_empty() {
            return;
        }
        // Plain objects and numbers, as `JSON.parse` would give them.
        let Ok(data) = crate::js_value::write(message) else {
            return;
        };
        for origin in &self.origins {
            // A parent on another origin than `origin` does not get it: the
            // browser drops the message.
            parent
                .post_message(&data, origin)
                .log_failure("posting to the portal");
        }
    }

    /// The parent's message in `event`, if it is one to act on.
    pub fn accept(&self, event: &web_sys::MessageEvent) -> Option<ParentMessage> {
        let parent = self.parent.as_ref().filter(|_| !self.silent)?;
        let from_parent = event
            .source()
            .is_some_and(|source| js_sys::Object::is(&source, parent));
        if !accepted(&event.origin(), from_parent, &self.origins) {
            return None;
        }
        crate::js_value::read(&event.data()).ok()
    }
}

/// Whether a message is from the parent window on a portal origin.
pub fn accepted(origin: &str, from_parent: bool, origins: &[String]) -> bool {
    from_parent && origins.iter().any(|o| o == origin)
}

#[cfg(test)]
mod tests {
    use super::accepted;

    #[test]
    fn only_the_parent_on_a_portal_origin_is_heard() {
        let origins = vec!["https://casino.example".to_owned()];
        assert!(accepted("https://casino.example", true, &origins));
        assert!(!accepted("https://casino.example", false, &origins));
        assert!(!accepted("https://evil.example", true, &origins));
        assert!(!accepted(
            "https://casino.example.evil.example",
            true,
            &origins
        ));
        assert!(!accepted("null", true, &origins));
        assert!(!accepted("https://casino.example", true, &[]));
    }
}
