;;; acp-el.el --- drive ferret through acp.el, the ACP layer of agent-shell  -*- lexical-binding: t; -*-
;; Run by scripts/check-editor-recipes.sh: emacs --batch -L ACP_EL_DIR -l acp-el.el
;; Turn 1: a write asked about and allowed (the file written through fs/write_text_file).
;; Turn 2: a write asked about and answered {"outcome":"cancelled"} followed by session/cancel,
;; which is what agent-shell sends when its prompt is cancelled while it asks.
(require 'acp)
(require 'map)

(defvar recipe-log nil)
(defun recipe-say (fmt &rest args)
  (let ((line (apply #'format fmt args)))
    (push line recipe-log)
    (princ (concat line "\n") #'external-debugging-output)))

(setq acp-logging-enabled (getenv "RECIPE_ACP_LOG"))
(defvar recipe-turn 1)
(defvar recipe-session nil)
(defvar recipe-client
  (acp-make-client
   :command "chimera"
   :command-params '("ferret" "serve" "--approval" "suggest")
   :environment-variables (list (concat "FERRET_MODEL=" (getenv "FERRET_MODEL"))
                                (concat "CHIMERA_HOME=" (getenv "CHIMERA_HOME")))))

(acp-subscribe-to-notifications
 :client recipe-client
 :on-notification
 (lambda (n)
   (let ((u (map-nested-elt n '(params update))))
     (pcase (map-elt u 'sessionUpdate)
       ("agent_message_chunk" (recipe-say "agent: %s" (map-nested-elt u '(content text))))
       ("tool_call" (recipe-say "tool_call: %s [%s]" (map-elt u 'title) (map-elt u 'status)))
       ("tool_call_update" (recipe-say "tool_call_update: %s %s" (or (map-elt u 'status) "")
                                       (mapconcat (lambda (c) (or (map-elt c 'type) "?"))
                                                  (map-elt u 'content) " ")))
       (other (recipe-say "update: %s" other))))))

(acp-subscribe-to-requests
 :client recipe-client
 :on-request
 (lambda (r)
   (let-alist r
     (pcase .method
       ("session/request_permission"
        (let ((diff (seq-find (lambda (c) (equal (map-elt c 'type) "diff")) .params.toolCall.content)))
          (recipe-say "permission asked: %s (diff for %s: %S)" .params.toolCall.title
                      (map-elt diff 'path) (map-elt diff 'newText)))
        (if (= recipe-turn 1)
            (acp-send-response :client recipe-client
                               :response (acp-make-session-request-permission-response
                                          :request-id .id :option-id "allow"))
          ;; agent-shell's cancel: the cancelled answer, then session/cancel 1 ms later.
          (acp-send-response :client recipe-client
                             :response (acp-make-session-request-permission-response
                                        :request-id .id :cancelled t))
          (run-at-time 0.001 nil
                       (lambda ()
                         (acp-send-notification
                          :client recipe-client
                          :notification (acp-make-session-cancel-notification :session-id recipe-session))))))
       ("fs/read_text_file"
        (recipe-say "fs/read_text_file %s" .params.path)
        (acp-send-response :client recipe-client
                           :response (if (file-exists-p .params.path)
                                         (acp-make-fs-read-text-file-response
                                          :request-id .id
                                          :content (with-temp-buffer (insert-file-contents .params.path) (buffer-string)))
                                       (acp-make-fs-read-text-file-response
                                        :request-id .id :error (acp-make-error :code -32002 :message "not found")))))
       ("fs/write_text_file"
        (recipe-say "fs/write_text_file %s" .params.path)
        (with-temp-file .params.path (insert .params.content))
        (acp-send-response :client recipe-client
                           :response (acp-make-fs-write-text-file-response :request-id .id)))
       (other (recipe-say "request %s left unanswered" other))))))

(defun recipe-request (request)
  "Send REQUEST and wait for its answer; return (ok . result-or-error)."
  (let (done)
    (acp-send-request :client recipe-client :request request
                      :on-success (lambda (res) (setq done (cons t res)))
                      :on-failure (lambda (err &rest _) (setq done (cons nil err))))
    (with-timeout (30 (setq done (cons nil "timeout")))
      (while (not done) (accept-process-output nil 0.05)))
    done))

(let* ((init (recipe-request (acp-make-initialize-request
                              :protocol-version 1
                              :client-info '((name . "acp.el-recipe") (version . "1"))
                              :read-text-file-capability t :write-text-file-capability t)))
       (_ (recipe-say "initialize: %s agent %s" (car init) (map-nested-elt (cdr init) '(agentInfo name))))
       (new (recipe-request (acp-make-session-new-request :cwd default-directory)))
       (_ (setq recipe-session (map-elt (cdr new) 'sessionId)))
       (_ (recipe-say "session/new: %s" recipe-session))
       (p1 (recipe-request (acp-make-session-prompt-request
                            :session-id recipe-session
                            :prompt '(((type . "text") (text . "Create hello.txt saying hi")))))))
  (recipe-say "turn 1 answered: %S" (cdr p1))
  (setq recipe-turn 2)
  (let ((p2 (recipe-request (acp-make-session-prompt-request
                             :session-id recipe-session
                             :prompt '(((type . "text") (text . "Now write bye.txt")))))))
    (recipe-say "turn 2 answered: %S" (cdr p2))
    (recipe-say "hello.txt: %S" (and (file-exists-p "hello.txt")
                                     (with-temp-buffer (insert-file-contents "hello.txt") (buffer-string))))
    (recipe-say "bye.txt exists: %s" (file-exists-p "bye.txt"))
    ;; The requests agent-shell makes from its pickers and session menu.
    (dolist (req (list (acp-make-session-set-config-option-request
                        :session-id recipe-session :config-id "mode" :value "plan")
                       (acp-make-session-set-config-option-request
                        :session-id recipe-session :config-id "approval" :value "auto")
                       (acp-make-session-set-mode-request :session-id recipe-session :mode-id "code")
                       (acp-make-session-list-request :cwd default-directory)
                       (acp-make-session-fork-request :session-id recipe-session :cwd default-directory)
                       (acp-make-session-load-request :session-id recipe-session :cwd default-directory)))
      (let ((res (recipe-request req)))
        (recipe-say "%s: %s %s" (map-elt req :method) (if (car res) "ok" "ERROR")
                    (truncate-string-to-width (format "%S" (cdr res)) 160))))
    (when acp-logging-enabled
      (with-current-buffer (acp-logs-buffer :client recipe-client)
        (write-region nil nil (getenv "RECIPE_ACP_LOG"))))
    (acp-shutdown :client recipe-client)
    (with-temp-file (getenv "RECIPE_OUT") (insert (string-join (reverse recipe-log) "\n") "\n"))
    (kill-emacs (if (and (equal (map-elt (cdr p1) 'stopReason) "end_turn")
                         (equal (map-elt (cdr p2) 'stopReason) "cancelled")
                         (not (file-exists-p "bye.txt")))
                    0 1))))
